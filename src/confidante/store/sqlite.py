"""SQLite backend: the embedded default. WAL for concurrent readers, secure_delete so
deleted rows are overwritten in the file rather than left in free pages."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .sql import Dialect, SqlStore


class SQLiteStore(SqlStore):
    dialect = Dialect(placeholder="?", blob="BLOB", bigint="INTEGER", id_pk="INTEGER PRIMARY KEY")

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            # Owner-only from the start; SQLite gives its -wal and -shm files the same mode.
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        try:
            self._conn = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=30
            )
            c = self._conn
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("PRAGMA secure_delete=ON")
            c.execute("PRAGMA foreign_keys=ON")
            c.execute("PRAGMA synchronous=NORMAL")
            self._depth = 0
            self.migrate()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"not a usable confidante database ({e.__class__.__name__})") from None

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._conn.execute(sql, tuple(params)).fetchall()

    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._conn.executemany(sql, rows)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        # Re-entrant: only the outermost level begins and commits.
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            self._conn.execute("ROLLBACK")
            raise
        self._depth = 0
        self._conn.execute("COMMIT")

    def compact(self) -> None:
        with self._lock:
            self._conn.execute("VACUUM")
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def backup_to(self, dest: Path) -> None:
        """A consistent online copy (still ciphertext) through SQLite's backup API."""
        with self._lock:
            target = sqlite3.connect(str(dest))
            try:
                self._conn.backup(target)
            finally:
                target.close()

    def checkpoint(self) -> None:
        """Fold the WAL back into the main file (used before copying or inspecting files)."""
        with self._lock:
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._conn.close()

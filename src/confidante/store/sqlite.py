"""SQLite backend: the embedded default, safe for several processes on one file.

WAL lets readers run beside a writer. Erasure is physical: with `secure_delete` SQLite
overwrites deleted rows with zeros, and after every transaction that deleted or overwrote
stored bytes the WAL is checkpointed and truncated, so the old page images do not survive
in `-wal` either (`erases_physically`).

The files are only ever touched through SQLite. Opening and closing a second descriptor on
the database file inside a process that holds a connection drops that process's POSIX
locks (SQLite's "How To Corrupt" page, 2.2), after which another process may delete the WAL
under it; so nothing here reads, copies or replaces the files directly: copies go through
the backup API, replacements through the backup API under an exclusive lock.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from ..errors import DatabaseInUse, StoreError
from .sql import Dialect, SqlStore

log = logging.getLogger("confidante.store")

BUSY_TIMEOUT_MS = 30_000
_PROBE_TIMEOUT_MS = 250  # how long `exclusive` waits for other connections to let go


def create_private(path: Path) -> None:
    """Create `path` empty with mode 0600 (from its first byte), unless it exists."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


class SQLiteStore(SqlStore):
    dialect = Dialect(
        placeholder="?",
        blob="BLOB",
        bigint="INTEGER",
        id_pk="INTEGER PRIMARY KEY",
        for_update="",  # BEGIN IMMEDIATE already serialises every writer
    )
    erases_physically = True

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)
        # Owner-only from the start; SQLite gives its -wal and -shm files the same mode.
        create_private(self.path)
        try:
            self._conn = sqlite3.connect(
                str(self.path),
                isolation_level=None,
                check_same_thread=False,
                timeout=BUSY_TIMEOUT_MS / 1000,
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
        self._erasing = False
        try:
            yield
        except BaseException:
            self._depth = 0
            self._erasing = False
            self._conn.execute("ROLLBACK")
            raise
        self._depth = 0
        self._conn.execute("COMMIT")
        if self._erasing:
            self._erasing = False
            self.checkpoint()

    # -- locks -----------------------------------------------------------------------------
    @contextmanager
    def rotation_lock(self) -> Iterator[None]:
        # Writers are serialised by BEGIN IMMEDIATE; the key file's own lock (vault.keyfile)
        # covers the rename that follows a rotation's commit.
        yield

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Every open connection in WAL mode keeps a shared lock on the database file, so an
        exclusive lock is granted only when no other connection (in any process) is open. It
        is held until the block ends: nobody can open the database meanwhile."""
        with self._lock:
            c = self._conn
            c.execute(f"PRAGMA busy_timeout={_PROBE_TIMEOUT_MS}")
            c.execute("PRAGMA locking_mode=EXCLUSIVE")
            try:
                try:
                    c.execute("BEGIN EXCLUSIVE")
                    c.execute("COMMIT")  # in exclusive locking mode the lock outlives it
                except sqlite3.OperationalError:
                    raise DatabaseInUse(
                        "another process has this database open (a running `confidante serve`?)"
                        "; stop it first"
                    ) from None
                c.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
                yield
            finally:
                c.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
                c.execute("PRAGMA locking_mode=NORMAL")
                c.execute("SELECT COUNT(*) FROM sqlite_master").fetchall()  # releases the lock

    # -- upkeep ----------------------------------------------------------------------------
    def compact(self) -> None:
        with self._lock:
            self._conn.execute("VACUUM")
            self.checkpoint()

    def backup_to(self, dest: Path) -> None:
        """A consistent online copy (still ciphertext) through SQLite's backup API, into a
        file created 0600 before its first byte."""
        with self._lock:
            if dest.exists():
                raise StoreError("the backup file already exists")
            create_private(dest)
            target = sqlite3.connect(str(dest))
            try:
                self._conn.backup(target)
            finally:
                target.close()

    def restore_from(self, src: Path) -> None:
        """Replace this database's content with `src`'s, page by page through the backup API,
        as the only process with it open (DatabaseInUse otherwise)."""
        source = sqlite3.connect(str(src))
        try:
            with self._lock, self.exclusive():
                source.backup(self._conn)
                self.checkpoint()
        finally:
            source.close()

    def checkpoint(self) -> bool:
        """Fold the WAL into the main file and truncate it to zero bytes, so no old page image
        survives in `-wal`. Waits (busy timeout) for readers of older snapshots, in any
        process, to finish; False when it could not complete (tried again next time)."""
        with self._lock:
            busy, _, _ = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            log.warning("the WAL could not be truncated yet (a reader held it); will retry")
        return not busy

    def integrity_ok(self) -> bool:
        with self._lock:
            return self._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                pass
            finally:
                self._conn.close()

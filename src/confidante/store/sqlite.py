"""SQLite backend: the embedded default, safe for several processes on one file.

WAL lets readers run beside a writer. Erasure is physical: with `secure_delete` SQLite
overwrites deleted rows with zeros, and after every transaction that deleted or overwrote
stored bytes the WAL is checkpointed and truncated, so the old page images do not survive
in `-wal` either (`erases_physically`).

A reader in another process that still reads an older snapshot (a backup script, the
`sqlite3` shell) keeps the WAL from being truncated. The truncate waits for it only briefly
(`CHECKPOINT_WAIT_MS`: every writer, in every process, waits while it does); what it leaves is
recorded in the database by the erasing transaction itself (a counter of erasures, and the
counter's value at the last truncate), so it survives a crash and every process sees it. It
is retried by this process's later transactions, by every process that opens the database,
by `confidante serve` on a timer and by `complete_erasure`, and reported pending meanwhile.

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
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from ..errors import DatabaseBusy, DatabaseInUse, StoreError
from .sql import Dialect, SqlStore

log = logging.getLogger("confidante.store")

BUSY_TIMEOUT_MS = 30_000  # how long a write waits for another process's (then database_busy)
CHECKPOINT_WAIT_MS = 100  # how long a WAL truncate waits for readers of older snapshots
RETRY_SECONDS = 1.0  # a truncate left pending is tried again at most this often per process
_PROBE_TIMEOUT_MS = 250  # how long `exclusive` waits for other connections to let go
_ERASURES = "erasures"  # meta: erasing transactions committed so far
_TRUNCATED = "erasures_truncated"  # meta: how many of them a WAL truncate has covered
_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6


def _is_busy(e: sqlite3.OperationalError) -> bool:
    return (getattr(e, "sqlite_errorcode", 0) & 0xFF) in (_SQLITE_BUSY, _SQLITE_LOCKED)


def _busy_error() -> DatabaseBusy:
    return DatabaseBusy("another process kept the database locked; try again")


def create_private(path: Path) -> None:
    """Create `path` empty with mode 0600 (from its first byte), unless it exists."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot change `path` nor create anything beside it (no -wal, no
    -shm, no migration): for backups, which are the user's files, not ours."""
    uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
    return sqlite3.connect(uri, uri=True)


def read_meta(path: Path, key: str) -> bytes | None:
    """One meta value of a database file (a backup), read without changing it."""
    con = open_read_only(path)
    try:
        rows = con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchall()
    except sqlite3.DatabaseError:
        raise StoreError("not a confidante database") from None
    finally:
        con.close()
    return bytes(rows[0][0]) if rows else None


class SQLiteStore(SqlStore):
    dialect = Dialect(
        placeholder="?",
        blob="BLOB",
        bigint="INTEGER",
        id_pk="INTEGER PRIMARY KEY",
        for_update="",  # BEGIN IMMEDIATE already serialises every writer
    )
    erases_physically = True

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        super().__init__()
        self.path = Path(path)
        self.busy_timeout_ms = int(busy_timeout_ms)
        self._retry_at: float | None = None  # when to try a pending truncate again
        self._look_at = 0.0  # when to look again for truncates other processes left pending
        # Owner-only from the start; SQLite gives its -wal and -shm files the same mode.
        create_private(self.path)
        try:
            self._conn = sqlite3.connect(
                str(self.path),
                isolation_level=None,
                check_same_thread=False,
                timeout=self.busy_timeout_ms / 1000,
            )
            c = self._conn
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("PRAGMA secure_delete=ON")
            c.execute("PRAGMA foreign_keys=ON")
            c.execute("PRAGMA synchronous=NORMAL")
            self._depth = 0
            self.migrate()
        except sqlite3.OperationalError as e:
            if _is_busy(e):
                raise _busy_error() from None
            raise StoreError(f"not a usable confidante database ({e.__class__.__name__})") from None
        except sqlite3.DatabaseError as e:
            raise StoreError(f"not a usable confidante database ({e.__class__.__name__})") from None
        if self.erasures_unflushed():  # left by a process that died, or by a reader
            self.checkpoint()

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._conn.execute(sql, tuple(params)).fetchall()
        except sqlite3.OperationalError as e:
            if _is_busy(e):
                raise _busy_error() from None
            raise

    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            self._conn.executemany(sql, rows)
        except sqlite3.OperationalError as e:
            if _is_busy(e):
                raise _busy_error() from None
            raise

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
        self._execute("BEGIN IMMEDIATE")
        self._depth = 1
        self._erasing = False
        try:
            yield
            if self._erasing:  # recorded with the erasure itself: a crash cannot lose it
                self._count(_ERASURES, self._counter(_ERASURES) + 1)
            elif time.monotonic() >= self._look_at:
                self._look_at = time.monotonic() + RETRY_SECONDS
                if self._counter(_ERASURES) > self._counter(_TRUNCATED) and self._retry_at is None:
                    self._retry_at = 0.0  # another process left one pending
        except BaseException:
            self._depth = 0
            self._erasing = False
            self._conn.execute("ROLLBACK")
            raise
        self._depth = 0
        try:
            self._execute("COMMIT")
        except BaseException:
            self._erasing = False
            with suppress(sqlite3.Error):  # a COMMIT refused as busy leaves it open
                self._conn.execute("ROLLBACK")
            raise
        if self._erasing:
            self._erasing = False
            self.checkpoint()
        elif self._retry_at is not None and time.monotonic() >= self._retry_at:
            self.checkpoint()

    def _counter(self, key: str) -> int:
        rows = self._q("SELECT value FROM meta WHERE key = ?", (key,))
        return int(bytes(rows[0][0]).decode()) if rows else 0

    def _count(self, key: str, value: int) -> None:
        self._set_meta(key, str(value).encode())

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
                c.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")
                yield
            finally:
                c.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")
                c.execute("PRAGMA locking_mode=NORMAL")
                c.execute("SELECT COUNT(*) FROM sqlite_master").fetchall()  # releases the lock

    # -- upkeep ----------------------------------------------------------------------------
    def compact(self) -> None:
        with self._lock:
            self._execute("VACUUM")
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
        as the only process with it open (DatabaseInUse otherwise). `src` is only read."""
        source = open_read_only(src)
        try:
            with self._lock, self.exclusive():
                source.backup(self._conn)
                self.checkpoint()
        finally:
            source.close()

    def checkpoint(self) -> bool:
        """Fold the WAL into the main file and truncate it to zero bytes, so no old page image
        survives in `-wal`. Waits at most `CHECKPOINT_WAIT_MS` for readers of older snapshots
        and for writers, in any process; False when they held on (the erasure stays pending,
        recorded in the database, and is tried again: see the module's docstring)."""
        with self._lock:
            if self._depth:
                return False  # never inside a transaction (the caller's commit tries)
            c = self._conn
            counters = dict(
                c.execute(
                    "SELECT key, CAST(value AS INTEGER) FROM meta WHERE key IN (?, ?)",
                    (_ERASURES, _TRUNCATED),
                ).fetchall()
            )
            erased = counters.get(_ERASURES, 0)
            try:
                c.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()  # the bulk, no waiting
                c.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
                busy = c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            except sqlite3.OperationalError as e:
                if not _is_busy(e):
                    raise
                busy = 1
            finally:
                c.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")
            if busy:
                if self._retry_at is None or self._retry_at == 0.0:
                    log.warning(
                        "the WAL could not be truncated yet (another process reads an older "
                        "snapshot): erasure pending, retried"
                    )
                self._retry_at = time.monotonic() + RETRY_SECONDS
                return False
            self._retry_at = None
            if erased > counters.get(_TRUNCATED, 0):
                # Everything erased before the truncate is out of the files. (An erasure
                # committed meanwhile is covered too, but counted at its own truncate.)
                try:
                    with self.transaction():
                        if self._counter(_TRUNCATED) < erased:
                            self._count(_TRUNCATED, erased)
                except DatabaseBusy:  # not recorded: still pending, truncated again later
                    self._retry_at = time.monotonic() + RETRY_SECONDS
                    return False
            return True

    def erasures_unflushed(self) -> int:
        """Erasing transactions whose old page images may still be in the files (the main
        file, not yet overwritten by a checkpoint, or `-wal`)."""
        with self.transaction():
            return max(0, self._counter(_ERASURES) - self._counter(_TRUNCATED))

    def flush_erasures(self) -> bool:
        """Truncate the WAL now if an erasure is pending; True when none is left."""
        return not self.erasures_unflushed() or self.checkpoint()

    def integrity_ok(self) -> bool:
        with self._lock:
            return self._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    def close(self) -> None:
        with self._lock:
            try:
                self.checkpoint()  # tidy, and one more chance for a pending erasure
            except (sqlite3.Error, StoreError):
                pass
            finally:
                self._conn.close()

"""Portable SQL for the store interface. Backends supply a connection and a dialect.

Statements are written once, with `?` placeholders and `{blob}`/`{bigint}`/`{id_pk}`
type slots, so SQLite and PostgreSQL run the same schema and queries.
"""

from __future__ import annotations

import threading
import time
from abc import abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any

from ..errors import ConcurrentChange, SchemaTooNew
from .base import (
    CLEAN,
    NEEDS_REKEY,
    NEEDS_ROTATION,
    EventRow,
    FactRow,
    PartitionRow,
    PatternRow,
    SkillStat,
    Store,
)

EVENT_BUCKET_MS = 60_000  # identical events within one minute share a row (a flood stays small)


@dataclass(frozen=True)
class Dialect:
    placeholder: str
    blob: str
    bigint: str
    id_pk: str  # auto-increment integer primary key
    for_update: str  # row lock on a SELECT inside a transaction ("" where writers serialise)


_FACT_COLUMNS_DDL = """
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
    ciphertext {blob} NOT NULL"""

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
        f"CREATE TABLE IF NOT EXISTS memory_facts ({_FACT_COLUMNS_DDL})",
        "CREATE INDEX IF NOT EXISTS facts_partition ON memory_facts (partition_id)",
        "CREATE INDEX IF NOT EXISTS facts_author ON memory_facts (author_key)",
        "CREATE INDEX IF NOT EXISTS facts_expires ON memory_facts (expires_at)",
        f"""CREATE TABLE IF NOT EXISTS memory_archive ({_FACT_COLUMNS_DDL},
            month TEXT NOT NULL,
            purge_after {{bigint}} NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS archive_partition ON memory_archive (partition_id)",
        """CREATE TABLE IF NOT EXISTS events (
            id {id_pk},
            at {bigint} NOT NULL,
            kind TEXT NOT NULL,
            code TEXT NOT NULL,
            scope TEXT,
            surface TEXT NOT NULL
        )""",
        """CREATE TABLE IF NOT EXISTS cleanup_log (
            id {id_pk},
            at {bigint} NOT NULL,
            line TEXT NOT NULL
        )""",
        """CREATE TABLE IF NOT EXISTS skill_stats (
            skill TEXT PRIMARY KEY,
            calls {bigint} NOT NULL,
            successes {bigint} NOT NULL,
            last_used {bigint} NOT NULL
        )""",
        """CREATE TABLE IF NOT EXISTS patterns (
            trigger_text TEXT NOT NULL,
            skills TEXT NOT NULL,
            count {bigint} NOT NULL,
            last_seen {bigint} NOT NULL,
            PRIMARY KEY (trigger_text, skills)
        )""",
    ],
    [
        # erasure bookkeeping (see base.NEEDS_REKEY), the lifetime a fact was written with,
        # and event counts (identical events aggregate)
        "ALTER TABLE partitions ADD COLUMN erase_pending INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE memory_facts ADD COLUMN ttl_ms {bigint}",
        "ALTER TABLE memory_archive ADD COLUMN ttl_ms {bigint}",
        "ALTER TABLE events ADD COLUMN count {bigint} NOT NULL DEFAULT 1",
        "CREATE INDEX IF NOT EXISTS events_same ON events (kind, code, surface, id)",
        "CREATE INDEX IF NOT EXISTS partitions_erase ON partitions (erase_pending)",
    ],
    [
        # each row's last write, as the partition version it made: a cached index catches up
        # on what changed instead of reading the whole partition again
        "ALTER TABLE memory_facts ADD COLUMN rev {bigint} NOT NULL DEFAULT 0",
        "ALTER TABLE memory_archive ADD COLUMN rev {bigint} NOT NULL DEFAULT 0",
        "CREATE INDEX IF NOT EXISTS facts_partition_rev ON memory_facts (partition_id, rev, id)",
        # a keyed digest of each fact's text in its place: the same sentence is found again
        "ALTER TABLE memory_facts ADD COLUMN text_key TEXT",
        "ALTER TABLE memory_archive ADD COLUMN text_key TEXT",
        "CREATE INDEX IF NOT EXISTS facts_text_key ON memory_facts (partition_id, text_key)",
    ],
]
SCHEMA_VERSION = len(MIGRATIONS)

# The fact columns are FactRow's fields, in order.
_FACT_FIELDS = tuple(f.name for f in fields(FactRow))
_FACT_COLUMNS = ", ".join(_FACT_FIELDS)
_FACT_MARKS = ", ".join("?" for _ in _FACT_FIELDS)
# A row's values in column order; not dataclasses.astuple, which deep-copies every field
# (8% of a bulk write's time).
_fact_values = attrgetter(*_FACT_FIELDS)
_REV = _FACT_FIELDS.index("rev")  # set by the store, whatever the row says
_PARTITION_COLUMNS = "id, scope, version, wrapped_key, erase_pending"
# A partition that had something erased: re-key it, or (no key left) just rotate the master.
_MARK_ERASED = (
    f"erase_pending = CASE WHEN wrapped_key IS NULL THEN {NEEDS_ROTATION} ELSE {NEEDS_REKEY} END"
)


def _fact(row: Sequence[Any]) -> FactRow:
    values = list(row)
    values[15] = bytes(values[15])
    return FactRow(*values)


def _partition(row: Sequence[Any]) -> PartitionRow:
    pid, scope, version, wrapped, pending = row
    return PartitionRow(
        pid,
        scope,
        int(version),
        bytes(wrapped) if wrapped is not None else None,
        int(pending),
    )


def _chunks(items: Sequence[Any], size: int = 500) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _marks(items: Sequence[Any]) -> str:
    return ", ".join("?" for _ in items)


class SqlStore(Store):
    dialect: Dialect

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._erasing = False  # the current transaction deletes or overwrites stored bytes

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

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Around a read of one statement: a transaction where the engine needs one to read
        (SQLite's, as before); on a server, where one statement is its own transaction, no
        BEGIN and COMMIT of its own (two round trips saved), unless a transaction is open."""
        with self.transaction():
            yield

    @contextmanager
    def key_change(self) -> Iterator[None]:
        with self.transaction():
            self._lock_keys(exclusive=True)
            yield

    @contextmanager
    def stable_keys(self) -> Iterator[None]:
        with self.transaction():
            self._lock_keys(exclusive=False)
            yield

    def _renewal_only(self) -> None:
        """Inside a transaction that only pushes expiries later: its commit need not wait for
        the disk (a renewal lost in a crash leaves the earlier expiry, which was valid)."""

    def _lock_keys(self, *, exclusive: bool) -> None:
        """Keep key rotations out of (exclusive: in) this transaction. Nothing to do where
        every write transaction is already exclusive (SQLite)."""

    def _check_keys(self, keycheck: bytes, *, exclusive: bool = False) -> None:
        """Inside a transaction: refuse when the master key changed under the caller."""
        self._lock_keys(exclusive=exclusive)
        rows = self._q("SELECT value FROM meta WHERE key = ?", ("keycheck",))
        if not rows or bytes(rows[0][0]) != keycheck:
            raise ConcurrentChange("the master key was rotated by another process")

    def _check_partitions(self, keys: Mapping[str, bytes]) -> None:
        """Inside a transaction: lock the partitions about to be written and refuse when one
        of their data keys is not the one the rows were sealed under."""
        wanted = sorted(keys)
        if not wanted:
            return
        rows = self._q(
            f"SELECT id, wrapped_key FROM partitions WHERE id IN ({_marks(wanted)}) "
            f"ORDER BY id{self.dialect.for_update}",
            wanted,
        )
        stored = {pid: bytes(w) if w is not None else None for pid, w in rows}
        for pid in wanted:
            if stored.get(pid) != keys[pid]:
                raise ConcurrentChange("a partition's key changed while writing; try again")

    def _erased(self) -> None:
        """Mark the current transaction as removing stored bytes (see `erases_physically`)."""
        self._erasing = True

    def _sql(self, sql: str) -> str:
        d = self.dialect
        sql = sql.format(blob=d.blob, bigint=d.bigint, id_pk=d.id_pk)
        return sql.replace("?", d.placeholder) if d.placeholder != "?" else sql

    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._execute(self._sql(sql), params)

    def _many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self._executemany(self._sql(sql), rows)

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
                self._set_meta("schema_version", str(version).encode())

    def _schema_version(self) -> int:
        rows = self._q("SELECT value FROM meta WHERE key = ?", ("schema_version",))
        return int(bytes(rows[0][0]).decode()) if rows else 0

    def schema_version(self) -> int:
        with self.transaction():
            return self._schema_version()

    # -- meta -------------------------------------------------------------------------------
    def get_meta(self, key: str) -> bytes | None:
        with self.reading():
            rows = self._q("SELECT value FROM meta WHERE key = ?", (key,))
        return bytes(rows[0][0]) if rows else None

    def _set_meta(self, key: str, value: bytes) -> None:
        self._q("DELETE FROM meta WHERE key = ?", (key,))
        self._q("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))

    def set_meta(self, key: str, value: bytes, *, keycheck: bytes | None = None) -> None:
        with self.transaction():
            if keycheck is not None:
                self._check_keys(keycheck)
            self._erased()  # the old value (a revoked agent key, say) must not linger
            self._set_meta(key, value)

    def init_meta(self, values: Mapping[str, bytes]) -> dict[str, bytes]:
        with self.transaction():
            self._lock_keys(exclusive=True)
            out = {}
            for key, value in values.items():
                rows = self._q("SELECT value FROM meta WHERE key = ?", (key,))
                if rows:
                    out[key] = bytes(rows[0][0])
                else:
                    self._q("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))
                    out[key] = value
        return out

    def meta_keys(self, prefix: str) -> list[str]:
        with self.reading():
            rows = self._q("SELECT key FROM meta ORDER BY key")
        return [k for (k,) in rows if k.startswith(prefix)]

    # -- partitions -------------------------------------------------------------------------
    def ensure_partition(
        self, pid: str, scope: str, wrapped_key: bytes, *, keycheck: bytes
    ) -> PartitionRow:
        select = f"SELECT {_PARTITION_COLUMNS} FROM partitions WHERE id = ?"
        with self.transaction():
            self._check_keys(keycheck)
            self._q(
                "INSERT INTO partitions (id, scope, version, wrapped_key, created_at) "
                "VALUES (?, ?, 0, ?, ?) ON CONFLICT (id) DO NOTHING",
                (pid, scope, wrapped_key, int(time.time() * 1000)),
            )
            rows = self._q(select + self.dialect.for_update, (pid,))
            if rows[0][3] is None:  # a destroyed partition comes back with a fresh key
                self._q(
                    "UPDATE partitions SET wrapped_key = ?, version = version + 1 WHERE id = ?",
                    (wrapped_key, pid),
                )
                rows = self._q(select, (pid,))
        return _partition(rows[0])

    def get_partitions(self, pids: Sequence[str]) -> list[PartitionRow]:
        out: list[PartitionRow] = []
        with self.reading():
            for chunk in _chunks(list(pids)):
                rows = self._q(
                    f"SELECT {_PARTITION_COLUMNS} FROM partitions WHERE id IN ({_marks(chunk)})",
                    chunk,
                )
                out.extend(_partition(r) for r in rows)
        return out

    def partitions(self, scopes: Iterable[str] | None = None) -> list[PartitionRow]:
        with self.transaction():
            if scopes is None:
                rows = self._q(f"SELECT {_PARTITION_COLUMNS} FROM partitions")
            else:
                wanted = list(scopes)
                if not wanted:
                    return []
                rows = self._q(
                    f"SELECT {_PARTITION_COLUMNS} FROM partitions "
                    f"WHERE scope IN ({_marks(wanted)})",
                    wanted,
                )
        return [_partition(r) for r in rows]

    def drop_partition(self, pid: str) -> int:
        with self.stable_keys():
            self._erased()
            # A tombstone, not a deletion: the version keeps rising, so every process's
            # cached index and key for this partition is seen to be stale. Written first, so
            # the row lock makes a concurrent insert either land before (and be deleted here)
            # or find the key gone (and start a fresh one).
            self._q(
                "UPDATE partitions SET wrapped_key = NULL, version = version + 1, "
                f"erase_pending = {NEEDS_ROTATION} WHERE id = ?",
                (pid,),
            )
            n = int(
                self._q("SELECT COUNT(*) FROM memory_facts WHERE partition_id = ?", (pid,))[0][0]
            )
            self._q("DELETE FROM memory_facts WHERE partition_id = ?", (pid,))
            self._q("DELETE FROM memory_archive WHERE partition_id = ?", (pid,))
        return n

    def delete_archived(
        self, *, author_key: str | None = None, origin_key: str | None = None
    ) -> int:
        clauses, params = [], []
        if author_key is not None:
            clauses.append("author_key = ?")
            params.append(author_key)
        if origin_key is not None:
            clauses.append("origin_key = ?")
            params.append(origin_key)
        if not clauses:
            return 0
        where = " AND ".join(clauses)
        with self.transaction():
            return self._delete_archived(where, params)

    def _delete_archived(self, where: str, params: Sequence[Any]) -> int:
        pids = [
            p
            for (p,) in self._q(
                f"SELECT DISTINCT partition_id FROM memory_archive WHERE {where}", params
            )
        ]
        if not pids:
            return 0
        self._erased()
        for pid in sorted(pids):
            self._q(f"UPDATE partitions SET {_MARK_ERASED} WHERE id = ?", (pid,))
        n = int(self._q(f"SELECT COUNT(*) FROM memory_archive WHERE {where}", params)[0][0])
        self._q(f"DELETE FROM memory_archive WHERE {where}", params)
        return n

    def rewrap(
        self,
        wrapped: Mapping[str, tuple[bytes, bytes]],
        meta: Mapping[str, bytes],
        *,
        keycheck: bytes,
        completed: Sequence[str],
    ) -> None:
        with self.transaction():
            self._check_keys(keycheck, exclusive=True)
            # The live keys must be the ones the rotation read: one destroyed since (by a
            # writer that did not wait for the key lock) must not be written back under the
            # new master key, which would make its old rows readable again.
            live = self._q(
                "SELECT id, wrapped_key FROM partitions WHERE wrapped_key IS NOT NULL "
                f"ORDER BY id{self.dialect.for_update}"
            )
            if {pid: bytes(w) for pid, w in live} != {p: old for p, (old, _) in wrapped.items()}:
                raise ConcurrentChange("a partition's key changed during the rotation")
            self._erased()  # old wrappings must not linger beside the new ones
            for pid in sorted(wrapped):
                old, new = wrapped[pid]
                self._q(
                    "UPDATE partitions SET wrapped_key = ? WHERE id = ? AND wrapped_key = ?",
                    (new, pid, old),
                )
            for key, value in meta.items():
                self._set_meta(key, value)
            # What was waiting for a new master key when the rotation read it has it now (a
            # partition erased again since still waits).
            for chunk in _chunks(sorted(completed)):
                self._q(
                    f"UPDATE partitions SET erase_pending = {CLEAN} "
                    f"WHERE erase_pending = ? AND id IN ({_marks(chunk)})",
                    (NEEDS_ROTATION, *chunk),
                )

    def rekey_partition(
        self,
        pid: str,
        *,
        version: int,
        old_wrapped: bytes,
        new_wrapped: bytes,
        facts: Sequence[tuple[str, bytes, str | None]],
        archived: Sequence[tuple[str, bytes]],
        keycheck: bytes,
    ) -> bool:
        with self.transaction():
            self._check_keys(keycheck)
            lock = self.dialect.for_update
            rows = self._q(
                f"SELECT version, wrapped_key FROM partitions WHERE id = ?{lock}", (pid,)
            )
            if not rows or int(rows[0][0]) != version or rows[0][1] is None:
                return False
            if bytes(rows[0][1]) != old_wrapped:
                return False
            self._erased()
            self._many(
                "UPDATE memory_facts SET ciphertext = ?, rev = ?, text_key = ? WHERE id = ?",
                [(ct, version + 1, tk, fid) for fid, ct, tk in facts],
            )
            self._many(
                "UPDATE memory_archive SET ciphertext = ? WHERE id = ?",
                [(ct, fid) for fid, ct in archived],
            )
            self._q(
                "UPDATE partitions SET wrapped_key = ?, version = version + 1, "
                "erase_pending = ? WHERE id = ?",
                (new_wrapped, NEEDS_ROTATION, pid),
            )
        return True

    def _bump(self, pids: Iterable[str], *, erased: bool = False) -> dict[str, int]:
        """Raise these partitions' versions; return each one's new version."""
        mark = f", {_MARK_ERASED}" if erased else ""
        if erased:
            self._erased()
        wanted = sorted(set(pids))
        for pid in wanted:
            self._q(f"UPDATE partitions SET version = version + 1{mark} WHERE id = ?", (pid,))
        out: dict[str, int] = {}
        for chunk in _chunks(wanted):
            for pid, version in self._q(
                f"SELECT id, version FROM partitions WHERE id IN ({_marks(chunk)})", chunk
            ):
                out[pid] = int(version)
        return out

    # -- facts ------------------------------------------------------------------------------
    def insert_facts(self, rows: Sequence[FactRow], keys: Mapping[str, bytes]) -> None:
        if not rows:
            return
        with self.transaction():
            self._check_partitions({r.partition_id: keys[r.partition_id] for r in rows})
            revs = self._bump(r.partition_id for r in rows)
            self._many(
                f"INSERT INTO memory_facts ({_FACT_COLUMNS}) VALUES ({_FACT_MARKS})",
                [
                    (*_fact_values(r)[:_REV], revs[r.partition_id], *_fact_values(r)[_REV + 1 :])
                    for r in rows
                ],
            )

    def update_facts(
        self, rows: Sequence[FactRow], keys: Mapping[str, bytes] | None = None
    ) -> None:
        if not rows:
            return
        with self.transaction():
            if keys is not None:
                self._check_partitions({r.partition_id: keys[r.partition_id] for r in rows})
            revs = self._bump((r.partition_id for r in rows), erased=keys is not None)
            self._many(
                "UPDATE memory_facts SET author_key = ?, expires_at = ?, updated_at = ?, "
                "ciphertext = ?, rev = ?, text_key = ? WHERE id = ?",
                [
                    (
                        r.author_key,
                        r.expires_at,
                        r.updated_at,
                        r.ciphertext,
                        revs[r.partition_id],
                        r.text_key,
                        r.id,
                    )
                    for r in rows
                ],
            )

    def touch_facts(self, ids: Sequence[str], expires_at: int) -> None:
        with self.transaction():
            self._renewal_only()
            for chunk in _chunks(list(ids)):
                self._q(
                    f"UPDATE memory_facts SET expires_at = ? WHERE id IN ({_marks(chunk)}) "
                    "AND expires_at IS NOT NULL AND expires_at < ?",
                    [expires_at, *chunk, expires_at],
                )

    def get_fact(self, fid: str) -> FactRow | None:
        with self.reading():
            rows = self._q(f"SELECT {_FACT_COLUMNS} FROM memory_facts WHERE id = ?", (fid,))
        return _fact(rows[0]) if rows else None

    def get_facts(self, ids: Sequence[str]) -> list[FactRow]:
        with self.reading():
            rows = [
                r
                for chunk in _chunks(list(ids))
                for r in self._q(
                    f"SELECT {_FACT_COLUMNS} FROM memory_facts WHERE id IN ({_marks(chunk)})",
                    list(chunk),
                )
            ]
        return [_fact(r) for r in rows]

    def facts_with_id_prefix(self, prefix: str, limit: int) -> list[FactRow]:
        if not prefix or any(c not in "0123456789abcdef" for c in prefix):
            return []  # ids are hex; anything else could smuggle LIKE wildcards
        with self.reading():
            # the range lets the primary-key index answer; LIKE keeps it exact in any collation
            rows = self._q(
                f"SELECT {_FACT_COLUMNS} FROM memory_facts WHERE id >= ? AND id < ? "
                "AND id LIKE ? ORDER BY id LIMIT ?",
                (prefix, prefix + "g", prefix + "%", int(limit)),
            )
        return [_fact(r) for r in rows]

    def facts_in(self, pid: str) -> list[FactRow]:
        with self.reading():
            rows = self._q(
                f"SELECT {_FACT_COLUMNS} FROM memory_facts WHERE partition_id = ? "
                "ORDER BY created_at, id",
                (pid,),
            )
        return [_fact(r) for r in rows]

    def facts_since(self, pid: str, rev: int) -> tuple[list[FactRow], int]:
        with self.transaction():
            rows = self._q(
                f"SELECT {_FACT_COLUMNS} FROM memory_facts WHERE partition_id = ? AND rev > ? "
                "ORDER BY created_at, id",
                (pid, int(rev)),
            )
            count = self._q("SELECT COUNT(*) FROM memory_facts WHERE partition_id = ?", (pid,))
        return [_fact(r) for r in rows], int(count[0][0])

    def facts_with_text_keys(self, pid: str, keys: Sequence[str]) -> list[FactRow]:
        out: list[FactRow] = []
        with self.reading():
            for chunk in _chunks(sorted(set(keys))):
                rows = self._q(
                    f"SELECT {_FACT_COLUMNS} FROM memory_facts WHERE partition_id = ? "
                    f"AND text_key IN ({_marks(chunk)}) ORDER BY created_at, id",
                    (pid, *chunk),
                )
                out += [_fact(r) for r in rows]
        return out

    def fact_ids(self, pid: str) -> list[str]:
        with self.transaction():
            rows = self._q("SELECT id FROM memory_facts WHERE partition_id = ?", (pid,))
        return [str(i) for (i,) in rows]

    def facts_where(
        self,
        *,
        author_key: str | None = None,
        origin_key: str | None = None,
        expired_before: int | None = None,
    ) -> list[FactRow]:
        clauses: list[str] = []
        params: list[Any] = []
        if author_key is not None:
            clauses.append("author_key = ?")
            params.append(author_key)
        if origin_key is not None:
            clauses.append("origin_key = ?")
            params.append(origin_key)
        if expired_before is not None:
            clauses.append("expires_at IS NOT NULL AND expires_at <= ?")
            params.append(expired_before)
        where = " AND ".join(clauses) or "1 = 1"
        with self.transaction():
            rows = self._q(f"SELECT {_FACT_COLUMNS} FROM memory_facts WHERE {where}", params)
        return [_fact(r) for r in rows]

    def delete_facts(self, ids: Sequence[str]) -> int:
        ids = list(ids)
        deleted = 0
        with self.transaction():
            for chunk in _chunks(ids):
                pids = self._q(
                    f"SELECT DISTINCT partition_id FROM memory_facts WHERE id IN ({_marks(chunk)})",
                    chunk,
                )
                deleted += int(
                    self._q(
                        f"SELECT COUNT(*) FROM memory_facts WHERE id IN ({_marks(chunk)})", chunk
                    )[0][0]
                )
                self._bump((p for (p,) in pids), erased=True)
                self._q(f"DELETE FROM memory_facts WHERE id IN ({_marks(chunk)})", chunk)
        return deleted

    def count_facts(self) -> int:
        with self.transaction():
            return int(self._q("SELECT COUNT(*) FROM memory_facts")[0][0])

    # -- archive ----------------------------------------------------------------------------
    def archive_facts(
        self,
        rows: Sequence[FactRow],
        month: str,
        purge_after: int,
        keys: Mapping[str, bytes] | None = None,
    ) -> None:
        if not rows:
            return
        with self.transaction():
            if keys is not None:
                self._check_partitions({r.partition_id: keys[r.partition_id] for r in rows})
            self._many(
                f"INSERT INTO memory_archive ({_FACT_COLUMNS}, month, purge_after) "
                f"VALUES ({_FACT_MARKS}, ?, ?)",
                [(*_fact_values(r), month, purge_after) for r in rows],
            )
            self._many("DELETE FROM memory_facts WHERE id = ?", [(r.id,) for r in rows])
            self._bump(r.partition_id for r in rows)

    def purge_archive(self, now: int) -> int:
        with self.transaction():
            return self._delete_archived("purge_after <= ?", (now,))

    def count_archive(self) -> int:
        with self.transaction():
            return int(self._q("SELECT COUNT(*) FROM memory_archive")[0][0])

    def archived_in(self, pid: str) -> list[FactRow]:
        with self.reading():
            rows = self._q(
                f"SELECT {_FACT_COLUMNS} FROM memory_archive WHERE partition_id = ?", (pid,)
            )
        return [_fact(r) for r in rows]

    def get_archived(self, fid: str) -> FactRow | None:
        with self.transaction():
            rows = self._q(f"SELECT {_FACT_COLUMNS} FROM memory_archive WHERE id = ?", (fid,))
        return _fact(rows[0]) if rows else None

    def delete_archived_ids(self, ids: Sequence[str]) -> int:
        deleted = 0
        with self.transaction():
            for chunk in _chunks(list(ids)):
                deleted += self._delete_archived(f"id IN ({_marks(chunk)})", chunk)
        return deleted

    # -- events and cleanup log --------------------------------------------------------------
    def record_event(self, row: EventRow) -> None:
        """Identical events (kind, code, scope, surface) within one minute add to one row's
        count, so a flood of refusals or failed logins cannot fill the log."""
        with self.transaction():
            last = self._q(
                "SELECT id, at FROM events WHERE kind = ? AND code = ? AND surface = ? "
                "AND COALESCE(scope, '') = ? ORDER BY id DESC LIMIT 1",
                (row.kind, row.code, row.surface, row.scope or ""),
            )
            if last and int(last[0][1]) // EVENT_BUCKET_MS == row.at // EVENT_BUCKET_MS:
                self._q(
                    "UPDATE events SET count = count + ?, at = ? WHERE id = ?",
                    (row.count, max(row.at, int(last[0][1])), last[0][0]),
                )
                return
            self._q(
                "INSERT INTO events (at, kind, code, scope, surface, count) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (row.at, row.kind, row.code, row.scope, row.surface, row.count),
            )

    def events(self, kind: str | None = None, limit: int = 100) -> list[EventRow]:
        where, params = ("WHERE kind = ?", [kind]) if kind else ("", [])
        with self.transaction():
            rows = self._q(
                f"SELECT at, kind, code, scope, surface, count FROM events {where} "
                "ORDER BY id DESC LIMIT ?",
                [*params, int(limit)],
            )
        return [EventRow(int(a), k, c, s, f, int(n)) for a, k, c, s, f, n in rows]

    def append_cleanup_log(self, at: int, line: str) -> None:
        with self.transaction():
            self._q("INSERT INTO cleanup_log (at, line) VALUES (?, ?)", (at, line))

    def cleanup_log(self, limit: int = 100) -> list[tuple[int, str]]:
        with self.transaction():
            rows = self._q("SELECT at, line FROM cleanup_log ORDER BY id DESC LIMIT ?", (limit,))
        return [(int(a), str(line)) for a, line in rows]

    # -- T1 public stats ----------------------------------------------------------------------
    def record_skill(self, skill: str, ok: bool, at: int, count: int = 1) -> None:
        with self.transaction():
            self._q(
                "INSERT INTO skill_stats (skill, calls, successes, last_used) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (skill) DO UPDATE SET calls = skill_stats.calls + excluded.calls, "
                "successes = skill_stats.successes + excluded.successes, "
                "last_used = CASE WHEN excluded.last_used > skill_stats.last_used "
                "THEN excluded.last_used ELSE skill_stats.last_used END",
                (skill, count, count if ok else 0, at),
            )

    def record_pattern(self, trigger: str, skills: str, at: int, count: int = 1) -> None:
        with self.transaction():
            self._q(
                "INSERT INTO patterns (trigger_text, skills, count, last_seen) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (trigger_text, skills) DO UPDATE SET "
                "count = patterns.count + excluded.count, "
                "last_seen = CASE WHEN excluded.last_seen > patterns.last_seen "
                "THEN excluded.last_seen ELSE patterns.last_seen END",
                (trigger, skills, count, at),
            )

    def skill_stats(self) -> list[SkillStat]:
        with self.reading():
            rows = self._q(
                "SELECT skill, calls, successes, last_used FROM skill_stats ORDER BY skill"
            )
        return [SkillStat(s, int(c), int(ok), int(t)) for s, c, ok, t in rows]

    def patterns(self) -> list[PatternRow]:
        with self.transaction():
            rows = self._q(
                "SELECT trigger_text, skills, count, last_seen FROM patterns "
                "ORDER BY count DESC, trigger_text"
            )
        return [PatternRow(t, s, int(c), int(seen)) for t, s, c, seen in rows]

    def drop_patterns(self, seen_before: int) -> int:
        with self.transaction():
            n = int(
                self._q("SELECT COUNT(*) FROM patterns WHERE last_seen < ?", (seen_before,))[0][0]
            )
            self._q("DELETE FROM patterns WHERE last_seen < ?", (seen_before,))
        return n

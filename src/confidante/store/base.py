"""The store interface: what a backend must do, in rows of ciphertext and keyed metadata.

A store never sees plaintext text, embeddings or raw actor ids; it holds what the engine
hands it. SQLite is the default; PostgreSQL implements the same interface (both through
the portable SQL in `sql.py`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

# What a partition still needs before what was erased from it is unrecoverable from copies
# of the files kept by an engine that does not erase physically (PostgreSQL's dead tuples
# and WAL): a fresh data key (its facts re-encrypted), then a master-key rotation.
CLEAN, NEEDS_REKEY, NEEDS_ROTATION = 0, 1, 2


@dataclass(frozen=True, slots=True)
class PartitionRow:
    id: str
    scope: str
    version: int
    wrapped_key: bytes | None
    erase_pending: int = CLEAN


@dataclass(frozen=True, slots=True)
class FactRow:
    id: str
    partition_id: str
    scope: str
    community_key: str | None
    subject_key: str | None
    author_key: str | None
    origin_kind: str
    origin_key: str | None
    tier: str
    kind: str
    source_skill: str | None
    created_at: int  # epoch milliseconds, UTC
    updated_at: int
    expires_at: int | None
    confidence: float
    ciphertext: bytes
    ttl_ms: int | None = None  # the lifetime it was written with (refresh-on-read keeps it)
    # the partition version its last write made (set by the store): a reader holding the
    # partition at version v reads only the rows with rev > v to catch up
    rev: int = 0
    # A keyed digest of the normalised text, its partition and origin (HMAC under the
    # installation secret): remembering the same sentence again in the same place finds it
    # without decrypting anything. Never the text; equal only for the same text there.
    text_key: str | None = None


@dataclass(frozen=True, slots=True)
class EventRow:
    """A denial or an owner-scope read: code, scope, surface, time; never content."""

    at: int
    kind: str  # "denial" | "owner_read"
    code: str
    scope: str | None
    surface: str
    count: int = 1  # identical events within one minute are kept as one row with a count


@dataclass(frozen=True, slots=True)
class SkillStat:
    skill: str
    calls: int
    successes: int
    last_used: int


@dataclass(frozen=True, slots=True)
class PatternRow:
    trigger: str
    skills: str  # comma-separated, sorted
    count: int
    last_seen: int


class Store(ABC):
    """Small on purpose: a second backend implements these and nothing else.

    Methods that seal something under the master key take `keycheck`, the sealed check value
    the caller's key opens: the store refuses (`ConcurrentChange`) when the database's check
    differs, i.e. another process rotated the master key, so nothing is ever wrapped under a
    retired key. Fact writes take the wrapped data key each partition was sealed under and
    likewise refuse when it changed (destroyed by a forget, replaced by a re-key), inside the
    same transaction as the write: no row is ever stored under a dead key.
    """

    #: True when deleted bytes leave the files when a transaction commits (SQLite with
    #: secure_delete and a truncated WAL); False when old row versions may linger (PostgreSQL),
    #: so erasure must end in destroying a key (see `services.lifecycle.complete_erasure`).
    erases_physically: bool = False

    def erasures_unflushed(self) -> int:
        """Where the engine erases physically: erasing writes whose old bytes may still be in
        the files (a reader in another process held the WAL); 0 elsewhere."""
        return 0

    def flush_erasures(self) -> bool:
        """Where the engine erases physically: try now to remove what `erasures_unflushed`
        counts; True when nothing is left."""
        return True

    # -- transactions and locks --
    @abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """One transaction; nested calls join the outer one."""

    @abstractmethod
    def key_change(self) -> AbstractContextManager[None]:
        """A transaction no other key-wrapping write can interleave with (a rotation)."""

    @abstractmethod
    def stable_keys(self) -> AbstractContextManager[None]:
        """A transaction in which the master key cannot change: a rotation waits for it to
        end, and it waits for a rotation in progress (taken before any row lock, so the two
        never deadlock). For writes that wrap under the master key or destroy a data key."""

    @abstractmethod
    def rotation_lock(self) -> AbstractContextManager[None]:
        """Held across a whole rotation, key file rename included, by one process at a time."""

    @abstractmethod
    def exclusive(self) -> AbstractContextManager[None]:
        """Run the block as the only process with the database open; raise DatabaseInUse
        if another has it open (used to replace or re-key what others may have cached)."""

    # -- metadata (schema version, wrapped secrets, key check, sealed adapter settings) --
    @abstractmethod
    def get_meta(self, key: str) -> bytes | None: ...

    @abstractmethod
    def set_meta(self, key: str, value: bytes, *, keycheck: bytes | None = None) -> None: ...

    @abstractmethod
    def init_meta(self, values: Mapping[str, bytes]) -> dict[str, bytes]:
        """Set these keys unless the database already has them (first opener wins); return
        the stored values."""

    @abstractmethod
    def meta_keys(self, prefix: str) -> list[str]: ...

    # -- partitions --
    @abstractmethod
    def ensure_partition(
        self, pid: str, scope: str, wrapped_key: bytes, *, keycheck: bytes
    ) -> PartitionRow:
        """Insert if absent (or give a destroyed partition this fresh key); return the stored
        row (another process may have won the race)."""

    @abstractmethod
    def get_partitions(self, pids: Sequence[str]) -> list[PartitionRow]:
        """The stored rows among `pids` (absent ones are skipped)."""

    @abstractmethod
    def partitions(self, scopes: Iterable[str] | None = None) -> list[PartitionRow]:
        """Every partition of these scopes (all of them for None)."""

    @abstractmethod
    def drop_partition(self, pid: str) -> int:
        """Delete a partition's facts and archive rows and destroy its wrapped key, leaving a
        tombstone whose version still rises (inside `stable_keys`: a rotation in progress
        cannot write the key back). Returns the number of facts deleted."""

    @abstractmethod
    def delete_archived(
        self, *, author_key: str | None = None, origin_key: str | None = None
    ) -> int: ...

    @abstractmethod
    def rewrap(
        self,
        wrapped: Mapping[str, tuple[bytes, bytes]],
        meta: Mapping[str, bytes],
        *,
        keycheck: bytes,
        completed: Sequence[str],
    ) -> None:
        """Key rotation, in one transaction: `wrapped` maps every live partition to (its
        wrapped key as read, the new wrapping); meta values are replaced; the partitions in
        `completed` (read as waiting for this rotation) are clean afterwards. Refuses
        (ConcurrentChange, nothing written) unless the database is still under the key
        `keycheck` belongs to and its live keys are exactly the ones read: a key destroyed
        since is never written back."""

    @abstractmethod
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
        """Replace a partition's data key and every ciphertext under it (live and archived,
        the live rows' text keys with them: `(id, ciphertext, text_key)`), if nothing
        changed since `version` was read; False (nothing written) otherwise."""

    # -- facts; every mutation bumps its partition's version in the same transaction, and a
    # written row records the version it made (`FactRow.rev`) --
    @abstractmethod
    def insert_facts(self, rows: Sequence[FactRow], keys: Mapping[str, bytes]) -> None:
        """Insert rows sealed under `keys` (partition id -> wrapped data key)."""

    @abstractmethod
    def update_facts(
        self, rows: Sequence[FactRow], keys: Mapping[str, bytes] | None = None
    ) -> None:
        """Replace author, expiry, update time and ciphertext of existing rows by id; `keys`
        as for insert_facts (None: the ciphertexts are unchanged)."""

    @abstractmethod
    def touch_facts(self, ids: Sequence[str], expires_at: int) -> None:
        """Extend expiry (refresh on read) without invalidating indexes."""

    @abstractmethod
    def get_fact(self, fid: str) -> FactRow | None: ...

    @abstractmethod
    def get_facts(self, ids: Sequence[str]) -> list[FactRow]:
        """The rows of these ids that exist, in any order (one read, however many)."""

    @abstractmethod
    def facts_with_id_prefix(self, prefix: str, limit: int) -> list[FactRow]:
        """Rows whose id starts with `prefix` (lower-case hex), at most `limit` of them."""

    @abstractmethod
    def facts_in(self, pid: str) -> list[FactRow]: ...

    @abstractmethod
    def facts_since(self, pid: str, rev: int) -> tuple[list[FactRow], int]:
        """What changed in a partition after version `rev`: the rows written (inserted,
        rewritten) since, and how many rows it holds now (fewer than expected: some were
        deleted; `fact_ids` then tells which remain)."""

    @abstractmethod
    def fact_ids(self, pid: str) -> list[str]: ...

    @abstractmethod
    def facts_with_text_keys(self, pid: str, keys: Sequence[str]) -> list[FactRow]:
        """The live rows of a partition whose `text_key` is one of `keys`."""

    @abstractmethod
    def facts_where(
        self,
        *,
        author_key: str | None = None,
        origin_key: str | None = None,
        expired_before: int | None = None,
    ) -> list[FactRow]: ...

    @abstractmethod
    def delete_facts(self, ids: Sequence[str]) -> int: ...

    @abstractmethod
    def count_facts(self) -> int: ...

    # -- archive of expired facts (still ciphertext) --
    @abstractmethod
    def archive_facts(
        self,
        rows: Sequence[FactRow],
        month: str,
        purge_after: int,
        keys: Mapping[str, bytes] | None = None,
    ) -> None:
        """Move rows to the archive (same ciphertext) and out of the live table; `keys` as
        for insert_facts when the rows were sealed just now."""

    @abstractmethod
    def purge_archive(self, now: int) -> int: ...

    @abstractmethod
    def count_archive(self) -> int: ...

    @abstractmethod
    def archived_in(self, pid: str) -> list[FactRow]: ...

    @abstractmethod
    def get_archived(self, fid: str) -> FactRow | None: ...

    @abstractmethod
    def delete_archived_ids(self, ids: Sequence[str]) -> int: ...

    # -- log of denials and owner reads (invariant 11), and cleanup history --
    @abstractmethod
    def record_event(self, row: EventRow) -> None: ...

    @abstractmethod
    def events(self, kind: str | None = None, limit: int = 100) -> list[EventRow]: ...

    @abstractmethod
    def append_cleanup_log(self, at: int, line: str) -> None: ...

    @abstractmethod
    def cleanup_log(self, limit: int = 100) -> list[tuple[int, str]]: ...

    # -- T1 public stats: plaintext by design, identifier-free by the privacy guard --
    @abstractmethod
    def record_skill(self, skill: str, ok: bool, at: int, count: int = 1) -> None:
        """Add `count` calls (all successes when `ok`); `last_used` only moves forward."""

    @abstractmethod
    def record_pattern(self, trigger: str, skills: str, at: int, count: int = 1) -> None: ...

    @abstractmethod
    def skill_stats(self) -> list[SkillStat]: ...

    @abstractmethod
    def patterns(self) -> list[PatternRow]: ...

    @abstractmethod
    def drop_patterns(self, seen_before: int) -> int: ...

    # -- upkeep --
    @abstractmethod
    def compact(self) -> None:
        """Give freed pages back (VACUUM) so deleted data leaves the files."""

    @abstractmethod
    def close(self) -> None: ...

"""The store interface: what a backend must do, in rows of ciphertext and keyed metadata.

A store never sees plaintext text, embeddings or raw actor ids; it holds what the engine
hands it. SQLite is the default; PostgreSQL implements the same interface (both through
the portable SQL in `sql.py`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PartitionRow:
    id: str
    scope: str
    version: int
    wrapped_key: bytes | None


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


@dataclass(frozen=True, slots=True)
class EventRow:
    """A denial or an owner-scope read: code, scope, surface, time; never content."""

    at: int
    kind: str  # "denial" | "owner_read"
    code: str
    scope: str | None
    surface: str


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
    """Small on purpose: a second backend implements these and nothing else."""

    # -- metadata (schema version, wrapped secrets, key check, sealed adapter settings) --
    @abstractmethod
    def get_meta(self, key: str) -> bytes | None: ...

    @abstractmethod
    def set_meta(self, key: str, value: bytes) -> None: ...

    @abstractmethod
    def meta_keys(self, prefix: str) -> list[str]: ...

    # -- partitions --
    @abstractmethod
    def ensure_partition(self, pid: str, scope: str, wrapped_key: bytes) -> PartitionRow:
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
        tombstone whose version still rises. Returns the number of facts deleted."""

    @abstractmethod
    def delete_archived(
        self, *, author_key: str | None = None, origin_key: str | None = None
    ) -> int: ...

    @abstractmethod
    def rewrap(self, wrapped: dict[str, bytes], meta: dict[str, bytes]) -> None:
        """Replace wrapped keys and meta values in one transaction (key rotation)."""

    # -- facts; every mutation bumps its partition's version in the same transaction --
    @abstractmethod
    def insert_facts(self, rows: Sequence[FactRow]) -> None: ...

    @abstractmethod
    def update_facts(self, rows: Sequence[FactRow]) -> None:
        """Replace author, expiry, update time and ciphertext of existing rows by id."""

    @abstractmethod
    def touch_facts(self, ids: Sequence[str], expires_at: int) -> None:
        """Extend expiry (refresh on read) without invalidating indexes."""

    @abstractmethod
    def get_fact(self, fid: str) -> FactRow | None: ...

    @abstractmethod
    def facts_with_id_prefix(self, prefix: str, limit: int) -> list[FactRow]:
        """Rows whose id starts with `prefix` (lower-case hex), at most `limit` of them."""

    @abstractmethod
    def facts_in(self, pid: str) -> list[FactRow]: ...

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
    def archive_facts(self, rows: Sequence[FactRow], month: str, purge_after: int) -> None:
        """Move rows to the archive (same ciphertext) and out of the live table."""

    @abstractmethod
    def purge_archive(self, now: int) -> int: ...

    @abstractmethod
    def count_archive(self) -> int: ...

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

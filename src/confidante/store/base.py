"""The store interface: what a backend must do, in rows of ciphertext and keyed metadata.

A store never sees plaintext text, embeddings or raw actor ids; it holds what the engine
hands it. SQLite is the default; PostgreSQL implements the same interface.
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
    wrapped_key: bytes | None  # None once destroyed (forgotten subject)


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
class DenialRow:
    at: int
    code: str
    scope: str | None
    surface: str


class Store(ABC):
    """Small on purpose: a second backend implements these and nothing else."""

    # metadata (schema version, wrapped installation secret, key check)
    @abstractmethod
    def get_meta(self, key: str) -> bytes | None: ...

    @abstractmethod
    def set_meta(self, key: str, value: bytes) -> None: ...

    # partitions
    @abstractmethod
    def ensure_partition(self, pid: str, scope: str, wrapped_key: bytes) -> PartitionRow:
        """Insert if absent; return the stored row (another process may have won the race)."""

    @abstractmethod
    def get_partition(self, pid: str) -> PartitionRow | None: ...

    @abstractmethod
    def partitions(self, scopes: Iterable[str]) -> list[PartitionRow]: ...

    @abstractmethod
    def get_partitions(self, pids: Sequence[str]) -> list[PartitionRow]:
        """The stored rows among `pids` (absent ones are skipped)."""

    # facts; every mutation bumps its partition's version in the same transaction
    @abstractmethod
    def insert_facts(self, rows: Sequence[FactRow]) -> None: ...

    @abstractmethod
    def get_fact(self, fid: str) -> FactRow | None: ...

    @abstractmethod
    def facts_in(self, pid: str) -> list[FactRow]: ...

    @abstractmethod
    def delete_fact(self, fid: str) -> bool: ...

    @abstractmethod
    def count_facts(self) -> int: ...

    # denial log (invariant 11): code, scope, surface, time; never content
    @abstractmethod
    def record_denial(self, row: DenialRow) -> None: ...

    @abstractmethod
    def denials(self, limit: int = 100) -> list[DenialRow]: ...

    @abstractmethod
    def close(self) -> None: ...

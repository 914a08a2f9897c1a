"""`Engine`: the core every operation goes through: policy -> privacy -> vault -> store ->
recall. This module holds its state and the small operations; reading, writing and the
people directory with shared spaces are its parts (`reads`, `writes`, `people`)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from .. import policy
from ..config import SCOPE_LIFETIMES, Settings, load_settings
from ..errors import (
    AccessDenied,
    InvalidInput,
)
from ..model import Context, Scope, normalize_actor
from ..policy import Viewer
from ..privacy import guard
from ..recall.cache import PartitionCache
from ..recall.index import IndexedFact
from ..recall.ranking import Pipeline, Ranker
from ..store import EventRow, FactRow, Store
from ..store.postgres import PostgresStore, is_postgres_url
from ..store.sqlite import SQLiteStore
from ..vault.keyfile import KeyFile
from ..vault.keyring import Keyring
from ..vault.records import Opened, to_ms
from .keys import master_key_source
from .parts import (
    EPOCH,
    OWNERS_META,
    Clock,
    _check_context,
    _check_count,
    _check_label_text,
    _day,
    _indexed,
    _open,
    _utcnow,
    default_rankers,
)
from .people import People
from .reads import Reads
from .writes import Writes


class Engine(Reads, Writes, People):
    """Scoped, gated, encrypted memory. Users open `confidante.Memory`, which adds the
    services to this core."""

    def __init__(
        self,
        store: Store,
        *,
        master_key: bytes,
        owner_ids: Iterable[str] = (),
        settings: Settings | None = None,
        clock: Clock | None = None,
        rankers: Sequence[Ranker] | None = None,
        key_file: Path | None = None,
    ) -> None:
        """`key_file`: where `master_key` was read from, if it was (so a rotation by another
        process is followed, and this one can rotate for everyone)."""
        self.store = store
        self.settings = settings or load_settings()
        self._use_owners(owner_ids, "configuration")
        self.clock: Clock = clock or _utcnow
        self.keys = Keyring(store, master_key, KeyFile(key_file) if key_file else None)
        # Decrypted partitions: bounded, least recently used dropped first, and dropped at
        # once when something in them is forgotten or overwritten. Nothing else in the
        # process keeps decrypted text (the stemmer's memo is emptied with them).
        self.cache = PartitionCache(int(self.settings.cache_mb * 1024 * 1024))
        self._lock = threading.RLock()
        self.pipeline = Pipeline(rankers or default_rankers(self.settings))
        self._names_noted: dict[tuple[str | None, str, str], datetime] = {}

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        owner_ids: Iterable[str] | None = None,
        master_key: bytes | str | None = None,
        settings: Settings | None = None,
        clock: Clock | None = None,
        create_key: bool = False,
    ) -> Self:
        """Open (creating if needed) a memory: a SQLite file path, or a `postgresql://` URL.

        The master key comes from the argument, else `CONFIDANTE_MASTER_KEY`, else the key
        file (`CONFIDANTE_KEY_FILE`, or beside a SQLite database, created with mode 0600 for
        a new one). `create_key` (`confidante init`): a configured key file that does not
        exist yet is created for a server database too.
        """
        settings = settings or load_settings()
        owners = list(owner_ids) if owner_ids is not None else list(settings.owner_ids)
        target = os.fspath(path) if path is not None else str(settings.db)
        store: Store
        if is_postgres_url(target):
            key, key_file = master_key_source(None, master_key, settings, create=create_key)
            store = PostgresStore(target)
        else:
            key, key_file = master_key_source(Path(target), master_key, settings)
            store = SQLiteStore(target, busy_timeout_ms=settings.busy_timeout_ms)
        try:
            engine = cls(
                store,
                master_key=key,
                owner_ids=owners,
                settings=settings,
                clock=clock,
                key_file=key_file,
            )
            if owner_ids is not None:
                engine.owner_source = "argument" if engine.owners else None
            elif not owners:  # nothing configured: the owner `confidante init` stored, if any
                engine._use_owners(engine.stored_owners(), "database")
            return engine
        except BaseException:
            store.close()
            raise

    def close(self) -> None:
        with self._lock:
            self.cache.clear()
            self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def now(self) -> datetime:
        return self.clock()

    def first_owner(self) -> str | None:
        """The first configured owner id (configuration order), or None when nobody is owner:
        who the local tools and the dashboard act as."""
        return self._owner_order[0] if self._owner_order else None

    def _use_owners(self, owner_ids: Iterable[str], source: str) -> None:
        ordered = list(dict.fromkeys(normalize_actor(o) for o in owner_ids))
        self._owner_order: tuple[str, ...] = tuple(ordered)
        self.owners: frozenset[str] = frozenset(ordered)
        self.owner_source: str | None = source if ordered else None

    def stored_owners(self) -> list[str]:
        """The owner ids `confidante init --owner` kept in the database (sealed: raw ids)."""
        raw = self.sealed_meta(OWNERS_META)
        return list(json.loads(raw)) if raw else []

    def store_owners(self, owner_ids: Iterable[str]) -> list[str]:
        """Keep the owner ids in the database, so every process that opens it (a server, an
        MCP client's `confidante mcp` with a bare environment) knows its owner. Configuration
        (environment, TOML, `owner_ids=`) still takes precedence when it names any."""
        ids = list(dict.fromkeys(normalize_actor(o) for o in owner_ids))
        if not ids:
            raise InvalidInput("name at least one owner id (platform:id)")
        self.set_sealed_meta(OWNERS_META, json.dumps(ids).encode())
        if self.owner_source in (None, "database"):
            self._use_owners(ids, "database")
        return ids

    def viewer(
        self, ctx: Context, query: str = "", *, spaces: dict[str, str] | None = None
    ) -> Viewer:
        """The context as the read rule sees it: with the shared spaces open to it and, for
        a query, the people it names (by id, mention, or a display name in the directory
        this context may read). Display names the context carries are noted first."""
        _check_context(ctx)
        spaces = (self.spaces_open(ctx) if spaces is None else spaces).values()
        if ctx.names:
            self._note_names(ctx)
        v = policy.viewer(ctx, self.owners, self.keys.key, query=query, spaces=spaces)
        if query.strip():
            named = self._named_people(v, ctx, query)
            if named:
                v = policy.viewer(
                    ctx, self.owners, self.keys.key, query=query, named=named, spaces=spaces
                )
        return v

    def deny(self, ctx: Context, code: str, scope: str | None) -> None:
        """Invariant 11: every denial is recorded (code, scope, surface, time; no content)."""
        self.record_denial(ctx.surface.value, code, scope)

    def record_denial(self, surface: str, code: str, scope: str | None = None) -> None:
        """For adapters refusing before a Context exists (a bad token's MCP call, say)."""
        self.store.record_event(EventRow(to_ms(self.now()), "denial", code, scope, surface[:32]))

    def require_owner_private(self, ctx: Context) -> Viewer:
        v = self.viewer(ctx)
        if not v.owner_private:
            code = policy.owner_only_code(v.is_owner)
            self.deny(ctx, code, None)
            raise AccessDenied(code)
        return v

    def invalidate(self, pid: str | None = None) -> None:
        if pid is None:
            self.cache.clear()
            self._names_noted.clear()  # a forgotten person's names are noted anew
        else:
            self.cache.pop(pid)

    def open_row(self, row: FactRow) -> Opened | None:
        """Everything sealed in one stored row; None when its partition's key has been
        destroyed. IntegrityError when it does not open (tampered, or sealed elsewhere)."""
        dk = self.keys.data_key(row.partition_id, row.scope, create=False)
        return None if dk is None else _open(dk, row)[0]

    def decrypt(self, row: FactRow) -> IndexedFact | None:
        """Open one stored row for the index; None when its partition's key was destroyed."""
        opened = self.open_row(row)
        return None if opened is None else _indexed(opened, row)

    def ttl_for(self, scope: Scope, kind: str) -> timedelta:
        """A fact's lifetime unless the write gives one: by kind, else by scope (configured,
        else built in: `config.SCOPE_LIFETIMES`), else the default (a year)."""
        s = self.settings
        by_scope = s.ttl_days_by_scope.get(
            scope.value, SCOPE_LIFETIMES.get(scope.value, s.default_ttl_days)
        )
        return timedelta(days=s.ttl_days_by_kind.get(kind, by_scope))

    def denials(self, ctx: Context, limit: int = 100) -> list[EventRow]:
        """The denial log (code, scope, surface, time). The owner's alone, in private."""
        self.require_owner_private(ctx)
        return self.store.events("denial", limit)

    def access_log(self, ctx: Context, limit: int = 100) -> list[EventRow]:
        """Denials and owner-memory reads, newest first. The owner's alone, in private."""
        self.require_owner_private(ctx)
        return self.store.events(None, limit)

    def sealed_meta(self, name: str) -> bytes | None:
        """A small value kept encrypted under the master key (e.g. an adapter's settings)."""
        return self.keys.sealed_meta(name)

    def set_sealed_meta(self, name: str, value: bytes) -> None:
        self.keys.set_sealed_meta(name, value)

    def record_skill_use(
        self, skill: str, ok: bool = True, *, count: int = 1, at: datetime | None = None
    ) -> None:
        """Count uses of a skill (`count` of them, all `ok` or all failed; `at` when last
        used, for imported stats). Skill names are public: no identifiers, no T3."""
        name = guard.check_label(_check_label_text(skill, "skill"), "skill")
        calls = _check_count(count)
        self.store.record_skill(name, bool(ok), self._stat_time(at), calls)

    def record_pattern(
        self, trigger: str, skills: Sequence[str], *, count: int = 1, at: datetime | None = None
    ) -> None:
        """Count an observed pattern: a trigger (generalised) and the skills it led to."""
        text = guard.public_text(_check_label_text(trigger, "trigger", 200))
        if isinstance(skills, str) or not skills:
            raise InvalidInput("skills must be a non-empty list of skill names")
        names = sorted({guard.check_label(_check_label_text(s, "skill"), "skill") for s in skills})
        seen = _check_count(count)
        self.store.record_pattern(text, ",".join(names), self._stat_time(at), seen)

    def _stat_time(self, at: datetime | None) -> int:
        if at is None:
            return to_ms(self.now())
        if not isinstance(at, datetime):
            raise InvalidInput("at must be a datetime")
        return to_ms(max(EPOCH, min(at if at.tzinfo else at.replace(tzinfo=UTC), self.now())))

    def public_stats(self) -> dict[str, Any]:
        """The T1 store: `{"skill_stats": {...}, "patterns_observed": [...]}`. Anything an
        older version let in that today's guard refuses is left out (`audit` reports it)."""
        return {
            "skill_stats": {
                s.skill: {
                    "calls": s.calls,
                    "success_rate": round(s.successes / s.calls, 4) if s.calls else 0.0,
                    "last_used": _day(s.last_used),
                }
                for s in self.store.skill_stats()
                if guard.public_label_ok(s.skill)
            },
            "patterns_observed": [
                {"trigger": p.trigger, "skills_used": p.skills.split(","), "count": p.count}
                for p in self.store.patterns()
                if guard.public_text_ok(p.trigger)
                and all(guard.public_label_ok(x) for x in p.skills.split(","))
            ],
        }

    def cleanup_history(self, ctx: Context | None = None, limit: int = 100) -> list[str]:
        """The kept log lines, newest first. They hold counts only; a given context must
        still be owner-private (adapters pass theirs)."""
        if ctx is not None:
            self.require_owner_private(ctx)
        return [line for _, line in self.store.cleanup_log(limit)]

    def rotate_master_key(self, new_key: bytes | str | None = None) -> bytes:
        """Re-wrap every data key under a new master key (facts are not re-encrypted) and
        return it. With a key file, the file is replaced and every process reading it follows;
        with a key given otherwise, no other process may have the database open
        (DatabaseInUse): they could not learn the new key."""
        return self.keys.rotate(new_key)

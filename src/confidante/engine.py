"""`Engine`: the core every operation goes through: policy -> privacy -> vault -> store -> recall.

Every operation builds a viewer from the context, asks `policy` which partitions and
origins it may touch, and only then loads (decrypts) data. Data a context may not see is
never decrypted for it. Work done through the engine (cleanup, erasure, backup, audit, the
prompt block) lives in `services/`; `confidante.Memory` is this engine plus those services.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import threading
import unicodedata
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import numpy as np

from . import policy
from .config import MAX_TTL_DAYS, SCOPE_LIFETIMES, Settings, load_settings
from .errors import (
    AccessDenied,
    AmbiguousId,
    ConcurrentChange,
    ConfidanteError,
    EmptyText,
    IntegrityError,
    InvalidContext,
    InvalidInput,
    MasterKeyMissing,
    NotFound,
)
from .model import Context, Fact, Hit, OriginKind, Scope, Surface, Tier, normalize_actor
from .policy import PartitionRef, Viewer
from .privacy import guard
from .privacy.metadata import check_metadata
from .recall.cache import PartitionCache, grown_bytes
from .recall.filters import Predicate, compile_filters
from .recall.index import IndexedFact, PartitionIndex
from .recall.names import NameMatcher
from .recall.ranking import BM25, Candidates, Pipeline, Ranker
from .recall.reading import Reading, sealed_reading
from .store import EventRow, FactRow, PartitionRow, Store
from .store.postgres import PostgresStore, is_postgres_url
from .store.sqlite import SQLiteStore
from .vault.crypto import (
    key_file_for,
    new_key,
    parse_master_key,
    read_key_file,
    text_key,
    write_key_file,
)
from .vault.keyfile import KeyFile
from .vault.keyring import Keyring
from .vault.records import Opened, from_ms, open_record, scope_of, seal_fact, to_ms
from .vault.spaces import SPACES_META, read_spaces

log = logging.getLogger("confidante.engine")

Clock = Callable[[], datetime]
ID_PREFIX = re.compile(r"^[0-9a-f]{4,31}$")
"""A shortened fact id (tables show 12 characters): at least 4 hex digits."""
MAX_PREFIX_MATCHES = 1000
OWNERS_META = "owners"
MAX_TEXT_CHARS = 20_000
HISTORY_KEPT = 20  # earlier texts of an updated fact, sealed with it (`Memory.history`)
NAME_KIND = "display-name"  # a directory fact: the name a person was seen with
NAMES_REFRESH = timedelta(days=1)  # a name seen again is written again at most this often
_NAMES_KEY = "names"  # a directory index's name matcher, in its extras
WRITE_RETRIES = 8  # a write whose partition key changed under it (forget, re-key) starts over
MAX_TTL = timedelta(days=MAX_TTL_DAYS)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""History starts here: an earlier `created_at` is refused (far-past times with an offset
cannot even be converted to UTC)."""
_MIN_MS = to_ms(datetime.min.replace(tzinfo=UTC))
_MAX_MS = to_ms(datetime.max.replace(tzinfo=UTC))


def _utcnow() -> datetime:
    return datetime.now(UTC)


def partition_ref(pid: str) -> PartitionRef:
    """The partition a stored id names. Scope comes from the id (bound into every fact's
    associated data), never from a row's separate scope column."""
    _, _, key = pid.partition(":")
    return PartitionRef(scope_of(pid), key)


class Engine:
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

    # -- opening -------------------------------------------------------------------------------
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

    # -- helpers shared with the services -------------------------------------------------------
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

    def viewer(self, ctx: Context, query: str = "") -> Viewer:
        """The context as the read rule sees it: with the shared spaces open to it and, for
        a query, the people it names (by id, mention, or a display name in the directory
        this context may read). Display names the context carries are noted first."""
        if not isinstance(ctx, Context):
            raise InvalidContext("a Context is required (use Context.dm(...), Context.guild(...))")
        spaces = self.spaces_open(ctx).values()
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

    # -- shared spaces and the people directory --------------------------------------------------
    def spaces(self) -> dict[str, policy.Space]:
        """Every shared space (name -> id and members), as the registry holds it now: a
        member removed elsewhere reads nothing more from the next operation on."""
        return read_spaces(self.sealed_meta(SPACES_META))

    def spaces_open(self, ctx: Context) -> dict[str, str]:
        """The shared spaces (name -> id) `ctx` may read and write (`policy.spaces_open_to`)."""
        return policy.spaces_open_to(ctx, self.owners, self.spaces())

    def _note_names(self, ctx: Context) -> None:
        """Keep the display names `ctx` carries in the directory: a community's names in
        that community's, every other in the private one (owner-only). Each is a sealed
        fact about that person, forgotten with them; one seen again is refreshed, at most
        once a day. A name the guard refuses (it holds an e-mail, say) is not kept."""
        group = ctx.surface is Surface.GROUP_DM
        community = ctx.community if ctx.surface in policy.GUILD_SURFACES else None
        now = self.now()
        for actor, name in ctx.names:
            seen = (community, actor, name)
            last = self._names_noted.get(seen)
            if last is not None and now - last < NAMES_REFRESH:
                continue
            try:
                guarded = guard.check_text(name, Scope.DIRECTORY)
            except ConfidanteError:
                self._names_noted[seen] = now
                continue
            target = policy.WriteTarget(
                Scope.DIRECTORY, subject=actor, community=community, group=group
            )
            self._write(
                ctx,
                target,
                [guarded],
                [({}, ())],
                kind=NAME_KIND,
                source_skill=None,
                confidence=1.0,
                ttls=[None],
                born=None,
                author=actor,
                embed=False,
            )
            if len(self._names_noted) > 10_000:
                self._names_noted.clear()
            self._names_noted[seen] = now

    def _named_people(self, v: Viewer, ctx: Context, query: str) -> set[str]:
        """The people `query` names by a display name this context may know: those in the
        directories `policy.directory_pool` opens to it, and the names `ctx` carries."""
        pool = policy.directory_pool(v)
        if not pool.partitions and not pool.all_of:
            return set()
        entries = [(name, actor) for actor, name in ctx.names]
        matchers = [NameMatcher(entries)] if entries else []
        for c in self.candidates(v, pool):
            matcher = c.index.extras.get(_NAMES_KEY)
            if not isinstance(matcher, NameMatcher):
                alive = c.index.mask(policy.Grant(c.index.ref), to_ms(self.now()))
                matcher = NameMatcher(
                    (f.fact.text, f.fact.subject)
                    for f, ok in zip(c.index.facts, alive, strict=True)
                    if ok and f.fact.subject
                )
                c.index.extras[_NAMES_KEY] = matcher
            matchers.append(matcher)
        return set().union(*(m.named_in(query) for m in matchers)) if matchers else set()

    def people(self, ctx: Context) -> dict[str, list[str]]:
        """The people directory, for the owner in private: each person (actor) and the
        display names they were seen with, most recent first."""
        v = self.require_owner_private(ctx)
        seen: dict[str, list[tuple[int, str]]] = {}
        for c in self.candidates(v, policy.directory_pool(v)):
            for i in np.flatnonzero(c.mask):
                f = c.index.facts[i]
                if f.fact.subject:
                    seen.setdefault(f.fact.subject, []).append((f.created_ms, f.fact.text))
        return {
            actor: list(dict.fromkeys(name for _, name in sorted(names, reverse=True)))
            for actor, names in sorted(seen.items())
        }

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

    def drop_stale(self) -> int:
        """Drop every cached index another process has changed since (a fact forgotten or
        overwritten there): its decrypted text leaves memory now, not at the next read of that
        partition. `confidante serve` runs this every few seconds. Returns how many."""
        cached = {ix.ref.id: ix.version for ix in self.cache.indexes()}
        if not cached:
            return 0
        now = {p.id: p.version for p in self.store.get_partitions(sorted(cached))}
        stale = [
            pid
            for pid, version in cached.items()
            if now.get(pid) != version and not self._only_added(pid)
        ]
        for pid in stale:
            self.cache.pop(pid)
        return len(stale)

    def _only_added(self, pid: str) -> bool:
        """Whether a cached partition only gained rows since it was read (nothing of its text
        was forgotten or rewritten): it may stay, and the next read catches up."""
        index = self.cache.peek(pid)
        return index is not None and self._additions(index) is not None

    def _additions(self, index: PartitionIndex) -> list[FactRow] | None:
        """The rows written to a cached partition since it was read, when rows were only
        added; None when one was deleted or rewritten (or re-sealed) meanwhile."""
        changed, count = self.store.facts_since(index.ref.id, index.version)
        known = {f.fact.id for f in index.facts}
        if count != len(known) + len(changed) or any(r.id in known for r in changed):
            return None
        return changed

    def open_row(self, row: FactRow) -> Opened | None:
        """Everything sealed in one stored row; None when its partition's key has been
        destroyed. IntegrityError when it does not open (tampered, or sealed elsewhere)."""
        dk = self.keys.data_key(row.partition_id, row.scope, create=False)
        return None if dk is None else _open(dk, row)[0]

    def decrypt(self, row: FactRow) -> IndexedFact | None:
        """Open one stored row for the index; None when its partition's key was destroyed."""
        opened = self.open_row(row)
        return None if opened is None else _indexed(opened, row)

    def write_sealed(self, items: Sequence[tuple[FactRow, Opened]]) -> None:
        """Re-seal existing rows with new content, under each partition's key as it is inside
        the writing transaction (a key replaced meanwhile means sealing again). A partition
        whose key was destroyed meanwhile has lost these facts: NotFound."""
        for _ in range(WRITE_RETRIES):
            keys: dict[str, bytes] = {}
            rows = []
            for row, o in items:
                found = self.keys.current(row.partition_id, row.scope, create=False)
                if found is None:
                    raise NotFound("no such fact")
                keys[row.partition_id] = found[0]
                rows.append(
                    seal_fact(
                        found[1],
                        row,
                        o.fact,
                        o.vector,
                        embedder=o.embedder,
                        context=o.context,
                        dependents=o.dependents,
                        history=o.history,
                    )
                )
            try:
                self.store.update_facts(rows, keys)
            except ConcurrentChange:
                continue
            for pid in keys:  # the stale indexes hold the text just overwritten
                self.invalidate(pid)
            return
        raise ConcurrentChange("a partition's key kept changing; try again")

    def ttl_for(self, scope: Scope, kind: str) -> timedelta:
        """A fact's lifetime unless the write gives one: by kind, else by scope (configured,
        else built in: `config.SCOPE_LIFETIMES`), else the default (a year)."""
        s = self.settings
        by_scope = s.ttl_days_by_scope.get(
            scope.value, SCOPE_LIFETIMES.get(scope.value, s.default_ttl_days)
        )
        return timedelta(days=s.ttl_days_by_kind.get(kind, by_scope))

    # -- writing ---------------------------------------------------------------------------------
    def remember(
        self,
        ctx: Context,
        text: str,
        namespace: str | None = None,
        *,
        kind: str = "fact",
        source_skill: str | None = None,
        confidence: float = 1.0,
        ttl: timedelta | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Fact:
        """Store one fact where the policy says this context may write it, with the app's
        own `metadata` (a small JSON object, sealed with it and checked like its text). The
        same sentence said again in the same place is not stored twice: the fact already
        there is refreshed and returned (`Fact.refreshed`)."""
        return self.remember_many(
            ctx,
            [text],
            namespace,
            kind=kind,
            source_skill=source_skill,
            confidence=confidence,
            ttl=ttl,
            metadata=metadata,
        )[0]

    def remember_many(
        self,
        ctx: Context,
        texts: Sequence[str],
        namespace: str | None = None,
        *,
        kind: str = "fact",
        source_skill: str | None = None,
        confidence: float = 1.0,
        ttl: timedelta | Sequence[timedelta | None] | None = None,
        embed_context: int = 0,
        created_at: datetime | Sequence[datetime] | None = None,
        authority: Context | None = None,
        metadata: Mapping[str, Any] | Sequence[Mapping[str, Any] | None] | None = None,
        ttl_from_now: bool = False,
    ) -> list[Fact]:
        """Store several facts in one transaction, all under the same namespace. Nothing is
        stored if any one of them is refused. `metadata`: one object for every text, or one
        per text.

        A text equal to one already here (`same_sentence`: the same words, whatever their
        case, spacing, Unicode form or closing punctuation), written in the same place by the
        same writer in the same kind of conversation, is not stored again: that fact is
        refreshed (its expiry pushed on, new metadata keys merged in) and returned with
        `refreshed=True`. Near-duplicates are left to supersession and cleanup.

        `embed_context=n` embeds each text together with the n texts before it in `texts`
        (a transcript's previous turns), so a reply like "yes, last week!" is found by what
        it answers. Only the vector sees the context; the stored text is the text itself.

        History keeps its dates: `created_at` (one datetime, or one per text) is when each
        entry was first said, and its expiry counts from then (`ttl`, likewise one or one
        per text, else the configured lifetime). Only the owner may date history: `ctx`
        must be owner-private, or `authority` an owner-private context that vouches for
        entries written in `ctx` (an import writing what Alice said in her DM). An entry
        already past its expiry goes straight to the encrypted archive, as cleanup would
        have moved it, and is never recalled: its returned fact has `expires_at <= now`.
        With `ttl_from_now` the lifetime counts from now instead (an import: the history
        keeps its dates, and what it brings in lives as long as anything written today)."""
        if isinstance(texts, str) or not isinstance(texts, Sequence):
            raise InvalidInput("texts must be a list of strings")
        clean = [_check_text(t) for t in texts]
        ttls = _per_text(ttl, len(clean), "ttl")
        metas = _per_text(metadata, len(clean), "metadata")
        _check_meta(kind, source_skill, confidence, None)
        for t in ttls:
            _check_ttl(t)
        born = self._dated(ctx, authority, created_at, len(clean))
        if (
            not isinstance(embed_context, int)
            or isinstance(embed_context, bool)
            or not (0 <= embed_context <= 10)
        ):
            raise InvalidInput("embed_context must be an integer between 0 and 10")
        self.viewer(ctx)
        try:
            target = policy.resolve_write(ctx, self.owners, namespace, self.spaces_open(ctx))
        except AccessDenied as e:
            self.deny(ctx, e.code, e.scope)
            raise
        # Labels are sealed with the text; in global memory every audience reads them too.
        public = target.scope is Scope.GLOBAL
        kind = guard.check_label(kind, "kind", public=public)
        if source_skill is not None:
            source_skill = guard.check_label(source_skill, "source_skill", public=public)
        guarded = [guard.check_text(t, target.scope, self.settings.privacy_mode) for t in clean]
        checked = [check_metadata(m, target.scope, self.settings.privacy_mode) for m in metas]
        return self._write(
            ctx,
            target,
            guarded,
            checked,
            kind=kind,
            source_skill=source_skill,
            confidence=confidence,
            ttls=ttls,
            born=born,
            embed_context=embed_context,
            ttl_from_now=ttl_from_now,
        )

    def _write(
        self,
        ctx: Context,
        target: policy.WriteTarget,
        guarded: Sequence[guard.Guarded],
        checked: Sequence[tuple[dict[str, Any], tuple[str, ...]]],
        *,
        kind: str,
        source_skill: str | None,
        confidence: float,
        ttls: Sequence[timedelta | None],
        born: list[datetime] | None,
        embed_context: int = 0,
        author: str | None = None,
        embed: bool = True,
        ttl_from_now: bool = False,
    ) -> list[Fact]:
        """Store texts the policy and the guard have passed, as written in `ctx` (by
        `author`: the context's actor unless given), in one transaction; the same sentence
        already here is refreshed instead (see `remember_many`)."""
        author = author or ctx.actor
        ref = policy.write_partition(target, self.keys.key)
        origin_kind, origin_raw = policy.origin_of(ctx, self.owners)
        _, origin_key = policy.keyed_origin(ctx, self.owners, self.keys.key)
        now = self.now()
        default_ttl = self.ttl_for(target.scope, kind)
        born = born or [now] * len(guarded)
        lifetimes = [default_ttl if t is None else t for t in ttls]
        expiries = [
            (now if ttl_from_now else b) + life for b, life in zip(born, lifetimes, strict=True)
        ]
        texts = [g.text for g in guarded]
        vectors = (
            None
            if not embed
            else self._embed(
                [" ".join(texts[max(0, i - embed_context) : i + 1]) for i in range(len(texts))]
            )
        )
        # One timestamp for an undated batch, so ids in ascending order keep the texts' order:
        # the store reads a partition by (created, id), and a transcript's lines stay in
        # sequence. Dated history is ordered by its dates.
        ids = sorted(uuid.uuid4().hex for _ in guarded)
        author_key = self.keys.key("actor", author) if author else None
        place = (ref.id, origin_kind.value, origin_key or "", author_key or "")
        sentences = [same_sentence(g.text) for g in guarded]
        wrapped, dk = self._partition_key(ref)
        text_keys = [text_key(dk, *place, t) for t in sentences]
        here = self._already_here(ref, text_keys, now)
        rows, facts, expired = [], [], []
        first_of: dict[str, int] = {}
        for i, g in enumerate(guarded):
            if text_keys[i] in here or text_keys[i] in first_of:
                facts.append(None)  # said before: refreshed below, after the new are stored
                continue
            first_of[text_keys[i]] = i
            fact = Fact(
                id=ids[i],
                scope=target.scope,
                text=g.text,
                subject=target.subject,
                community=target.community,
                space=target.space_name,
                origin=f"{origin_kind.value}:{origin_raw}" if origin_raw else origin_kind.value,
                author=author,
                tier=Tier.INTERNAL,
                kind=kind,
                source_skill=source_skill,
                confidence=float(confidence),
                created_at=born[i],
                updated_at=born[i],
                expires_at=expiries[i],
                metadata=checked[i][0],
                changes=g.changes + checked[i][1],
            )
            row = FactRow(
                id=fact.id,
                partition_id=ref.id,
                scope=target.scope.value,
                community_key=ref.key if target.scope is Scope.GUILD else None,
                subject_key=self.keys.key("actor", target.subject) if target.subject else None,
                author_key=author_key,
                origin_kind=origin_kind.value,
                origin_key=origin_key,
                tier=Tier.INTERNAL.value,
                kind=kind,
                source_skill=source_skill,
                created_at=to_ms(born[i]),
                updated_at=to_ms(born[i]),
                expires_at=to_ms(expiries[i]),
                confidence=float(confidence),
                ciphertext=b"",
                ttl_ms=int(lifetimes[i].total_seconds() * 1000),
                text_key=text_keys[i],
            )
            # embed_context's links: whose text this vector holds, and who holds this text
            context = tuple(ids[max(0, i - embed_context) : i]) if vectors is not None else ()
            dependents = tuple(ids[i + 1 : i + 1 + embed_context]) if vectors is not None else ()
            vector = None if vectors is None else vectors[i]
            made_by = None if vectors is None else self._vectors_by()
            item = (row, Opened(fact, vector, made_by, context, dependents))
            (expired if expiries[i] <= now else rows).append(item)
            facts.append(fact)
        grace = to_ms(now + timedelta(days=self.settings.archive_grace_days))
        for _ in range(WRITE_RETRIES):
            # The key is checked again inside the insert's transaction: if a forget destroyed
            # it (or a re-key replaced it) since it was read, nothing is written under it and
            # the batch is sealed again under the partition's key as it is now.
            wrapped, now_dk = self._partition_key(ref)
            if now_dk != dk:  # re-keyed meanwhile: the text keys follow the data key
                dk = now_dk
                rows = [
                    (replace(r, text_key=text_key(dk, *place, same_sentence(o.fact.text))), o)
                    for r, o in rows
                ]
            try:
                with self.store.transaction():
                    self.store.insert_facts(_seal_all(dk, rows), {ref.id: wrapped})
                    if expired:  # dated history already past its lifetime: archived, never
                        # recalled
                        self.store.archive_facts(
                            _seal_all(dk, expired),
                            now.strftime("%Y-%m"),
                            grace,
                            {ref.id: wrapped},
                        )
                break
            except ConcurrentChange:
                continue
        else:
            raise ConcurrentChange("the partition's key kept changing; try again")
        if len(first_of) < len(guarded):
            refreshed = self._refresh_said(here, text_keys, checked, now)
            made = {text_keys[i]: facts[i] for i in first_of.values()}
            facts = [
                f or refreshed.get(k) or made[k] for f, k in zip(facts, text_keys, strict=True)
            ]
        return facts  # type: ignore[return-value]

    def _already_here(
        self, ref: PartitionRef, text_keys: Sequence[str], now: datetime
    ) -> dict[str, FactRow]:
        """The live rows of `ref` holding one of these texts (by `text_key`)."""
        alive = to_ms(now)
        return {
            r.text_key: r
            for r in self.store.facts_with_text_keys(ref.id, text_keys)
            if r.text_key is not None and (r.expires_at is None or r.expires_at > alive)
        }

    def _refresh_said(
        self,
        here: Mapping[str, FactRow],
        text_keys: Sequence[str],
        checked: Sequence[tuple[dict[str, Any], tuple[str, ...]]],
        now: datetime,
    ) -> dict[str, Fact]:
        """Refresh the facts a write said again: expiry pushed on as a read does, new
        metadata keys merged in (sealed again only then). Returns them by text key."""
        merged: dict[str, dict[str, Any]] = {}
        for k, (meta, _) in zip(text_keys, checked, strict=True):
            if k in here and meta:
                merged.setdefault(k, {}).update(meta)
        out: dict[str, Fact] = {}
        resealed = []
        for k, row in here.items():
            opened = _quiet(self.open_row, row)
            if opened is None:
                continue
            fact = opened.fact
            if k in merged and {**fact.metadata, **merged[k]} != dict(fact.metadata):
                fact = replace(fact, metadata={**fact.metadata, **merged[k]})
                resealed.append((row, replace(opened, fact=fact)))
            out[k] = replace(fact, refreshed=True)
        if resealed:
            self.write_sealed(resealed)
        self._refresh(list(out.values()))
        return {k: self._current(f) for k, f in out.items()}

    def _current(self, fact: Fact) -> Fact:
        """`fact` with its expiry as stored now (after a refresh)."""
        row = self.store.get_fact(fact.id)
        if row is None or row.expires_at is None:
            return fact
        return replace(fact, expires_at=from_ms(row.expires_at))

    def _partition_key(self, ref: PartitionRef) -> tuple[bytes, bytes]:
        found = self.keys.current(ref.id, ref.scope.value, create=True)
        assert found is not None
        return found

    def _dated(
        self,
        ctx: Context,
        authority: Context | None,
        created_at: datetime | Sequence[datetime] | None,
        n: int,
    ) -> list[datetime] | None:
        """Original creation times, checked: the owner's to give, none in the future."""
        if created_at is None:
            return None
        if authority is not None and not isinstance(authority, Context):
            raise InvalidContext("authority must be a Context")
        self.viewer(ctx)
        if code := policy.backdate_denial(ctx, authority, self.owners):
            self.deny(ctx, code, None)
            raise AccessDenied(code, "only the owner, in private, may write dated history")
        dates = _per_text(created_at, n, "created_at")
        latest = self.now() + timedelta(minutes=5)  # clock skew between machines
        out = []
        for d in dates:
            if not isinstance(d, datetime):
                raise InvalidInput("created_at must be a datetime (or one per text)")
            d = d if d.tzinfo is not None else d.replace(tzinfo=UTC)
            if d > latest:
                raise InvalidInput("created_at is in the future")
            if d < EPOCH:
                raise InvalidInput("created_at is before 1970-01-01 (UTC)")
            out.append(d)
        return out

    def update(
        self,
        ctx: Context,
        fact_id: str,
        text: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> Fact:
        """Replace a fact's text (and, given `metadata`, its metadata); the same visibility
        and authorship rules as `forget`, and only from where the fact was learned
        (`policy.rewrite_denial`): the new text is shown to the fact's audience. The text it
        had is kept, sealed with it, for `Memory.history` (at most `HISTORY_KEPT`)."""
        text = _check_text(text)
        v, row, old, _ = self._find(ctx, fact_id)
        self._require_may_forget(ctx, v, row)
        here = policy.keyed_origin(ctx, self.owners, self.keys.key)
        learned = (OriginKind(row.origin_kind), row.origin_key)
        if code := policy.rewrite_denial(v, here, learned):
            self.deny(ctx, code, row.scope)
            raise AccessDenied(code, scope=row.scope)
        scope = scope_of(row.partition_id)
        g = guard.check_text(text, scope, self.settings.privacy_mode)
        meta, meta_changes = (
            check_metadata(metadata, scope, self.settings.privacy_mode)
            if metadata is not None
            else (dict(old.fact.metadata), ())
        )
        now = self.now()
        fact = replace(
            old.fact, text=g.text, updated_at=now, metadata=meta, changes=g.changes + meta_changes
        )
        history = old.history
        if g.text != old.fact.text:
            history = (*history, (to_ms(now), old.fact.text))[-HISTORY_KEPT:]
        dk = self.keys.data_key(row.partition_id, row.scope, create=False)
        if dk is None:
            raise NotFound("no such fact")
        key = text_key(
            dk,
            row.partition_id,
            row.origin_kind,
            row.origin_key or "",
            row.author_key or "",
            same_sentence(g.text),
        )
        context = self._existing(old.context)
        vectors = self._embed([" ".join([*self._texts(context), g.text])])
        vector = None if vectors is None else vectors[0]
        self.write_sealed(
            [
                (
                    replace(row, updated_at=to_ms(now), text_key=key),
                    replace(
                        old,
                        fact=fact,
                        vector=vector,
                        embedder=None if vector is None else self._vectors_by(),
                        context=context,
                        history=history,
                    ),
                )
            ]
        )
        self.reembed(old.dependents)  # their vectors still hold the old text's meaning
        return _shown(v, fact)

    def _existing(self, ids: Sequence[str]) -> tuple[str, ...]:
        return tuple(i for i in ids if self.store.get_fact(i) is not None)

    def _texts(self, ids: Sequence[str]) -> list[str]:
        out = []
        for fid in ids:
            row = self.store.get_fact(fid)
            opened = None if row is None else _quiet(self.open_row, row)
            if opened is not None:
                out.append(opened.fact.text)
        return out

    def reembed(self, ids: Sequence[str]) -> None:
        """Embed these facts again with the context lines that still exist (`embed_context`):
        a forgotten or rewritten line's meaning must not live on in a neighbour's vector."""
        if not ids or self._embed([]) is None:
            return
        items = []
        for fid in ids:
            row = self.store.get_fact(fid)
            opened = None if row is None else _quiet(self.open_row, row)
            if row is None or opened is None:
                continue
            context = self._existing(opened.context)
            vectors = self._embed([" ".join([*self._texts(context), opened.fact.text])])
            assert vectors is not None
            items.append(
                (
                    row,
                    replace(
                        opened, vector=vectors[0], embedder=self._vectors_by(), context=context
                    ),
                )
            )
        if items:
            with contextlib.suppress(NotFound):  # a neighbour erased meanwhile needs nothing
                self.write_sealed(items)

    def vector_is_current(self, vector: Any, made_by: str | None) -> bool:
        """Whether a stored vector is what the configured embedder would store (True when no
        ranker keeps vectors): `cleanup` embeds the others again and stores them."""
        for r in self.pipeline.rankers:
            is_current = getattr(r, "is_current", None)
            if is_current is not None:
                return bool(is_current(vector, made_by))
        return True

    def _vectors_by(self) -> str | None:
        """The name of the embedder whose vectors `_embed` makes."""
        for r in self.pipeline.rankers:
            embedder = getattr(r, "embedder", None)
            if getattr(r, "embed_documents", None) is not None and embedder is not None:
                return str(embedder.name)
        return None

    def _embed(self, texts: list[str]) -> Any:
        """Vectors for rankers that keep one per fact (the semantic ranker), every reading
        made now, in one batch; None otherwise."""
        for r in self.pipeline.rankers:
            embed = getattr(r, "embed_documents", None)
            if embed is not None:
                return embed(texts) if texts else []
        return None

    # -- reading ---------------------------------------------------------------------------------
    def _load_index(self, row: PartitionRow) -> PartitionIndex | None:
        cached = self.cache.get(row.id, row.version)
        if cached is not None:
            return cached
        cached = self.cache.peek(row.id)  # an older version, whose work may be reused
        try:
            latest = self.keys.unwrap_latest(row)
        except IntegrityError:
            log.warning("a partition's wrapped key does not open; skipped (see audit)")
            return None
        if latest is None:
            self.cache.pop(row.id)
            return None
        fresh, dk = latest
        if fresh is not row:  # re-wrapped by another process since `row` was read
            return self._load_index(fresh)
        key_id = hashlib.sha256(dk).digest()[:16]
        if cached is not None and cached.key_id == key_id:
            grown = self._catch_up(cached, row, dk)
            if grown is not None:
                size = self.cache.size(row.id)
                self.cache.put(grown, None if size is None else grown_bytes(size, cached, grown))
                return grown
        facts, readings, skipped = self._open_all(row.id, dk)
        if skipped:
            # Re-keyed by another process since `row` was read? Then read it all again.
            stored = self.store.get_partitions([row.id])
            if stored and stored[0].wrapped_key not in (None, row.wrapped_key):
                return self._load_index(stored[0])
            log.warning("%d stored rows failed to open and were skipped (see audit)", skipped)
        index = PartitionIndex(partition_ref(row.id), row.version, facts, key_id, readings)
        if cached is not None:
            index.inherit(cached)
        for r in self.pipeline.rankers:
            prepare = getattr(r, "prepare", None)
            if prepare is not None:
                prepare(index)
        index.previous = None  # what the rankers kept of it, they copied
        self.cache.put(index)
        return index

    def _catch_up(
        self, cached: PartitionIndex, row: PartitionRow, dk: bytes
    ) -> PartitionIndex | None:
        """`cached` with the rows written since it was read appended, when that is all that
        happened (an insert): a write costs the next reader what it added, not a new index
        of the whole partition, and a reader who may not see the new rows pays no rebuild
        for them. None when a fact was rewritten or deleted meanwhile (the index is read
        again, so nothing of the old text stays in memory) or most of it changed."""
        changed = self._additions(cached)
        if not changed or len(changed) > max(64, len(cached.facts)):
            return None
        added, readings = [], []
        for r in changed:
            try:
                opened, r = _open(dk, r)
            except IntegrityError:
                return None  # sealed under another key meanwhile: read it all again
            added.append(_indexed(opened, r))
            readings.append(sealed_reading(opened.reading))
        grown = cached.extended(row.version, added, readings)
        for r in self.pipeline.rankers:
            extend = getattr(r, "extend", None)
            prepare = getattr(r, "prepare", None)
            if extend is not None:
                extend(grown, cached)
            elif prepare is not None:
                prepare(grown)
        grown.previous = None
        return grown

    def _open_all(self, pid: str, dk: bytes) -> tuple[list[IndexedFact], list[Reading | None], int]:
        """The partition's facts, the readings sealed with them (`recall.reading`), and how
        many rows did not open."""
        facts, readings = [], []
        skipped = 0
        for r in self.store.facts_in(pid):
            try:
                opened, r = _open(dk, r)
            except IntegrityError:
                skipped += 1  # tampered, or sealed under a key that is gone: never shown
                continue
            facts.append(_indexed(opened, r))
            readings.append(sealed_reading(opened.reading))
        return facts, readings, skipped

    def candidates(
        self, v: Viewer, pool: policy.Pool, where: Predicate | None = None
    ) -> list[Candidates]:
        """Visible facts of every granted partition in the pool, decrypted and indexed;
        with `where` (`recall.filters`), only the visible facts it keeps."""
        rows = {r.id: r for r in self.store.partitions([s.value for s in pool.all_of])}
        named = [p.id for p in pool.partitions if p.id not in rows]
        rows.update((r.id, r) for r in self.store.get_partitions(named))
        now = to_ms(self.now())
        out = []
        with self._lock:
            for pid in sorted(rows):
                row = rows[pid]
                grant = policy.grant_for(v, partition_ref(row.id))
                if grant is None:
                    continue
                index = self._load_index(row)
                if index is not None and len(index):
                    mask = index.mask(grant, now)
                    if where is not None:  # narrows what the grant admits, never more
                        for i in np.flatnonzero(mask):
                            mask[i] = where(index.facts[i].fact)
                    out.append(Candidates(index, mask))
        return out

    def _note_reads(self, ctx: Context, cands: Sequence[Candidates], op: str) -> None:
        """Owner memory read: logged (operation, surface, time), for the owner to review."""
        if any(c.index.ref.scope is Scope.OWNER and c.mask.any() for c in cands):
            self._log_owner_read(ctx, op)

    def _log_owner_read(self, ctx: Context, op: str) -> None:
        self.store.record_event(
            EventRow(to_ms(self.now()), "owner_read", op, "owner", ctx.surface.value)
        )

    def recall(
        self,
        ctx: Context,
        query: str,
        k: int = 10,
        *,
        subjects: Iterable[str] | None = None,
        guilds: Iterable[str] | None = None,
        min_score: float | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        """Rank what this context may see against `query`; best `k` first. `filters`
        (`recall.filters`: metadata keys, kind, source skill, time ranges) narrow what is
        ranked; they never widen what the context may see."""
        if not isinstance(query, str):
            raise InvalidInput("query must be a string")
        if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k > 1000:
            raise InvalidInput("k must be an integer between 1 and 1000")
        if min_score is not None and not isinstance(min_score, int | float):
            raise InvalidInput("min_score must be a number")
        where = compile_filters(filters)
        v = self.viewer(ctx, query)
        try:
            pool = policy.recall_pool(ctx, v, self.keys.key, subjects=subjects, guilds=guilds)
        except AccessDenied as e:
            self.deny(ctx, e.code, None)
            raise
        cands = self.candidates(v, pool, where)
        if not query.strip():
            hits = [
                Hit(_shown(v, f.fact), 0.0, superseded_by=newer) for f, newer in _newest(cands)[:k]
            ]
        else:
            hits = [
                Hit(
                    _shown(v, cands[r.partition].index.facts[r.row].fact),
                    r.score,
                    r.parts,
                    None
                    if r.superseded_by is None
                    else cands[r.partition].index.facts[r.superseded_by].fact.id,
                )
                for r in self.pipeline.rank(query, cands, k, self.now())
                if min_score is None or r.score >= min_score
            ]
        if any(h.fact.scope is Scope.OWNER for h in hits):
            self._note_reads(ctx, cands, "recall")
        if self.settings.refresh_on_read and hits:
            self._refresh([h.fact for h in hits])
        return hits

    def _refresh(self, facts: Sequence[Fact]) -> None:
        """Push each read fact's expiry to now plus the lifetime it was written with: an
        explicit short ttl stays short, it is never stretched to the default."""
        now = self.now()
        by_until: dict[int, list[str]] = {}
        for f in facts:
            row = self.store.get_fact(f.id)
            if row is None:
                continue
            lifetime = (
                timedelta(milliseconds=row.ttl_ms)
                if row.ttl_ms is not None
                else self.ttl_for(f.scope, f.kind)
            )
            by_until.setdefault(to_ms(now + lifetime), []).append(f.id)
        for until, ids in by_until.items():
            self.store.touch_facts(ids, until)
            for index in self.cache.indexes():
                index.extend_expiry(set(ids), until)

    def list(
        self,
        ctx: Context,
        *,
        limit: int | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Fact]:
        """Every fact this context may see, newest first (only those `filters` keep)."""
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise InvalidInput("limit must be a non-negative integer")
        where = compile_filters(filters)
        v = self.viewer(ctx)
        cands = self.candidates(v, policy.visible_pool(v), where)
        self._note_reads(ctx, cands, "list")
        facts = [_shown(v, f.fact) for f, _ in _newest(cands)]
        return facts[:limit] if limit is not None else facts

    def _find(
        self, ctx: Context, fact_id: str, *, forgetting: bool = False
    ) -> tuple[Viewer, FactRow, Opened, bool]:
        """The row of a fact this context may see, opened, and whether it is archived.

        Expired facts are found only for forgetting (a writer may still erase an expired fact
        that cleanup has not purged, archived ones included). Every miss takes one path, and
        writes one log event, whether the id is hidden here or does not exist: neither the
        time taken nor a side effect tells them apart."""
        v = self.viewer(ctx)
        row: FactRow | None = None
        archived = False
        visible = False
        if isinstance(fact_id, str) and 0 < len(fact_id) <= 64:
            row = self.store.get_fact(fact_id)
            if row is None and ID_PREFIX.match(fact_id):
                row = self._row_by_prefix(v, fact_id)  # a shortened id, as tables show them
            if row is None and forgetting:
                row = self.store.get_archived(fact_id)
                archived = row is not None
        if row is not None:
            ref = partition_ref(row.partition_id)
            visible = policy.can_read(v, ref, OriginKind(row.origin_kind), row.origin_key)
            alive = forgetting or row.expires_at is None or row.expires_at > to_ms(self.now())
            if visible and alive:
                found = self._open_latest(row, archived)
                if found is not None:
                    row, opened = found
                    if scope_of(row.partition_id) is Scope.OWNER:
                        self._log_owner_read(ctx, "forget" if forgetting else "get")
                    return v, row, opened, archived
        self.deny(ctx, "not_found", row.scope if row is not None and not visible else None)
        raise NotFound("no such fact")

    def _open_latest(self, row: FactRow, archived: bool) -> tuple[FactRow, Opened] | None:
        """Open a row read a moment ago. Another process may have re-keyed its partition in
        between (an erasure round re-seals every row under a new key), so a row that does not
        open under the key stored now is read again; only the same bytes failing twice are an
        integrity error. None when the fact or its key is gone meanwhile."""
        for _ in range(WRITE_RETRIES):
            try:
                opened = self.open_row(row)
            except IntegrityError:
                again = self.store.get_archived(row.id) if archived else self.store.get_fact(row.id)
                if again is None:
                    return None
                if again == row:
                    raise
                row = again
                continue
            return None if opened is None else (row, opened)
        raise ConcurrentChange("a partition's key kept changing; try again")

    def _row_by_prefix(self, v: Viewer, prefix: str) -> FactRow | None:
        """The one fact this viewer may see whose id starts with `prefix` (as tables show ids
        shortened). Only visible, unexpired facts count, so a fact this context may not see
        never makes a prefix ambiguous nor reveals that it exists."""
        now = to_ms(self.now())
        matches = [
            row
            for row in self.store.facts_with_id_prefix(prefix, MAX_PREFIX_MATCHES)
            if (row.expires_at is None or row.expires_at > now)
            and policy.can_read(
                v, partition_ref(row.partition_id), OriginKind(row.origin_kind), row.origin_key
            )
        ]
        if len(matches) > 1:
            raise AmbiguousId(
                f"{len(matches)} facts visible here start with that id prefix; give more of it"
            )
        return matches[0] if matches else None

    def get(self, ctx: Context, fact_id: str) -> Fact:
        """One fact by id, or by a unique prefix of it among the facts this context may see;
        invisible and nonexistent ids both raise NotFound."""
        v, _, opened, _ = self._find(ctx, fact_id)
        return _shown(v, opened.fact)

    def get_record(self, ctx: Context, fact_id: str) -> tuple[Opened, str]:
        """Everything sealed with one fact this context may see (its earlier texts, for
        `Memory.history`), shown as `get` shows it, and its partition's id."""
        v, row, opened, _ = self._find(ctx, fact_id)
        return replace(opened, fact=_shown(v, opened.fact)), row.partition_id

    def _require_may_forget(self, ctx: Context, v: Viewer, row: FactRow) -> None:
        if not policy.may_forget(v, row.author_key, row.subject_key):
            self.deny(ctx, "not_author", row.scope)
            raise AccessDenied("not_author", scope=row.scope)

    def check_forget(self, ctx: Context, fact_id: str) -> None:
        """Raise (and record) exactly what `forget` would, forgetting nothing: for a caller
        that must know before it writes (a replacement that must not half-succeed)."""
        v, row, _, _ = self._find(ctx, fact_id, forgetting=True)
        self._require_may_forget(ctx, v, row)

    def forget(self, ctx: Context, fact_id: str) -> None:
        """Delete one fact: by its writer, its subject, or the owner in an owner-private context
        (an expired fact too, until cleanup purges it)."""
        v, row, opened, archived = self._find(ctx, fact_id, forgetting=True)
        self._require_may_forget(ctx, v, row)
        if archived:
            self.store.delete_archived_ids([row.id])
        else:
            self.store.delete_facts([row.id])
        self.invalidate(row.partition_id)  # its decrypted text goes with the stale index
        self.reembed(opened.dependents)

    # -- logs --------------------------------------------------------------------------------------
    def denials(self, ctx: Context, limit: int = 100) -> list[EventRow]:
        """The denial log (code, scope, surface, time). The owner's alone, in private."""
        self.require_owner_private(ctx)
        return self.store.events("denial", limit)

    def access_log(self, ctx: Context, limit: int = 100) -> list[EventRow]:
        """Denials and owner-memory reads, newest first. The owner's alone, in private."""
        self.require_owner_private(ctx)
        return self.store.events(None, limit)

    # -- sealed settings for adapters (agent keys, dashboard credentials) ------------------------
    def sealed_meta(self, name: str) -> bytes | None:
        """A small value kept encrypted under the master key (e.g. an adapter's settings)."""
        return self.keys.sealed_meta(name)

    def set_sealed_meta(self, name: str, value: bytes) -> None:
        self.keys.set_sealed_meta(name, value)

    # -- T1 public stats (plaintext by design, identifier-free) ----------------------------------
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

    # -- logs and keys kept by the store ----------------------------------
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


def default_rankers(settings: Settings) -> list[Ranker]:
    """Keyword ranking always; semantic ranking with the configured offline embedder."""
    from .recall.embedding import load_embedder
    from .recall.semantic import Semantic

    name = None if settings.embedder == "default" else settings.embedder
    try:
        embedder = load_embedder(name)
    except ValueError:
        raise InvalidInput(
            "unknown embedder (see confidante.recall.embedding.EMBEDDER_NAMES)"
        ) from None
    return [BM25()] if embedder is None else [BM25(), Semantic(embedder)]


def _indexed(opened: Opened, row: FactRow) -> IndexedFact:
    """What recall indexes: the opened fact plus its keyed metadata."""
    return IndexedFact(
        fact=opened.fact,
        origin_kind=OriginKind(row.origin_kind),
        origin_key=row.origin_key,
        author_key=row.author_key,
        subject_key=row.subject_key,
        created_ms=row.created_at,
        expires_ms=row.expires_at,
        vector=opened.vector,
        embedder=opened.embedder,
        rev=row.rev,
    )


def _seal_all(dk: bytes, items: Sequence[tuple[FactRow, Opened]]) -> list[FactRow]:
    return [
        seal_fact(
            dk,
            r,
            o.fact,
            o.vector,
            embedder=o.embedder,
            context=o.context,
            dependents=o.dependents,
            history=o.history,
        )
        for r, o in items
    ]


def _quiet(fn: Callable[[FactRow], Opened | None], row: FactRow) -> Opened | None:
    try:
        return fn(row)
    except IntegrityError:
        return None


def _shown(v: Viewer, fact: Fact) -> Fact:
    """The fact as this viewer may see it: without its provenance where policy hides it."""
    if policy.shows_provenance(v, fact.scope):
        return fact
    return replace(fact, author=None, origin=fact.scope.value, community=None)


def _clamp_ms(ms: Any) -> Any:
    return ms if ms is None else min(max(ms, _MIN_MS), _MAX_MS)


def _open(dk: bytes, row: FactRow) -> tuple[Opened, FactRow]:
    """Open a stored row. Times outside what a datetime can hold (a row written before
    dates were checked) are read as the nearest representable one: one odd row must not
    make a whole partition unreadable. Times are not authenticated data, so the ciphertext
    still opens. Returns the row as read, with its times in range."""
    if any(
        t is not None and not _MIN_MS <= t <= _MAX_MS
        for t in (row.created_at, row.updated_at, row.expires_at)
    ):
        row = replace(
            row,
            created_at=_clamp_ms(row.created_at),
            updated_at=_clamp_ms(row.updated_at),
            expires_at=_clamp_ms(row.expires_at),
        )
    return open_record(dk, row), row


def _day(ms: int) -> str:
    return datetime.fromtimestamp(_clamp_ms(ms) / 1000, UTC).date().isoformat()


def _newest(cands: Sequence[Candidates]) -> list[tuple[IndexedFact, str | None]]:
    """Every visible fact, newest first, with the id of the fact that superseded it."""
    items = []
    for c in cands:
        sup = c.index.superseded(c.mask)
        for i in c.mask.nonzero()[0]:
            newer = None if sup is None or sup[i] < 0 else c.index.facts[sup[i]].fact.id
            items.append((c.index.facts[i], newer))
    items.sort(key=lambda x: (x[0].created_ms, x[0].fact.id), reverse=True)
    return items


_CLOSING = " \t\r\n.!?\u3002"  # NFKC has made full-width ones (and an ellipsis) ASCII


def same_sentence(text: str) -> str:
    """What counts as saying the same thing again: the text in Unicode NFKC form, case
    folded, runs of white space as one space, without closing punctuation. "I like sushi",
    "i like  sushi." and "I like sushi!" are the same sentence; "I like sushi a lot" is
    not (near-duplicates are supersession's and cleanup's)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.split()).rstrip(_CLOSING)


# Letters that render as nothing (Hangul fillers, the Braille blank): with format and
# control characters, a text made only of these says nothing.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _blank(c: str) -> bool:
    return c.isspace() or c in _BLANK_LETTERS or unicodedata.category(c) in ("Cf", "Cc")


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise InvalidInput("text must be a string")
    stripped = text.strip()
    if all(_blank(c) for c in stripped):  # also "" and zero-width-only text
        raise EmptyText("text is empty (nothing visible in it)")
    if len(stripped) > MAX_TEXT_CHARS:
        raise InvalidInput(f"text is longer than {MAX_TEXT_CHARS} characters")
    if "\x00" in stripped:
        raise InvalidInput("text contains a NUL character")
    try:
        stripped.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("text is not valid Unicode (lone surrogate)") from None
    return stripped


def _check_label_text(value: object, what: str, limit: int = 64) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise InvalidInput(f"{what} must be a non-empty string of at most {limit} characters")
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in value.strip()):
        raise InvalidInput(f"{what} must be one line of visible text (no control characters)")
    if all(_blank(c) for c in value.strip()):
        raise InvalidInput(f"{what} must have something visible in it")
    return value.strip()


def _per_text(value: Any, n: int, what: str) -> list[Any]:
    """One value for every text, or a sequence with one per text."""
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        if len(value) != n:
            raise InvalidInput(f"{what} must be one value, or one per text")
        return list(value)
    return [value] * n


def _check_count(count: object) -> int:
    if isinstance(count, bool) or not isinstance(count, int) or not (1 <= count <= 10**9):
        raise InvalidInput("count must be a positive integer")
    return count


def _check_ttl(ttl: object) -> None:
    if ttl is not None and (not isinstance(ttl, timedelta) or not timedelta(0) < ttl <= MAX_TTL):
        raise InvalidInput(f"ttl must be a positive timedelta of at most {MAX_TTL.days} days")


def _check_meta(kind: object, source_skill: object, confidence: object, ttl: object) -> None:
    _check_label_text(kind, "kind")
    if source_skill is not None:
        _check_label_text(source_skill, "source_skill", 128)
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not (0.0 <= float(confidence) <= 1.0)
    ):
        raise InvalidInput("confidence must be a number between 0 and 1")
    _check_ttl(ttl)


def key_file_path(db: Path, settings: Settings) -> Path:
    """The configured key file, else `<database>.key` beside a SQLite file."""
    return settings.key_file or key_file_for(db)


def master_key_source(
    db: Path | None, explicit: bytes | str | None, settings: Settings, *, create: bool = False
) -> tuple[bytes, Path | None]:
    """The master key and the file it was read from (None when it was given otherwise):
    argument, else environment, else the key file (configured, or beside a SQLite file).

    A brand-new SQLite database gets a fresh key file (0600); an existing one without any key
    is an error rather than a silently different key. A server database needs a given key."""
    if explicit is not None:
        return parse_master_key(explicit), None
    if settings.master_key is not None:
        return parse_master_key(settings.master_key.get_secret_value()), None
    if db is None:
        if settings.key_file is not None:
            if create and not settings.key_file.exists():
                key = new_key()
                write_key_file(settings.key_file, key)
                return key, settings.key_file
            return read_key_file(settings.key_file), settings.key_file
        raise MasterKeyMissing(
            "a server database needs a master key: set CONFIDANTE_KEY_FILE to a path and run "
            "`confidante init` (it creates the key file, mode 0600), or set "
            "CONFIDANTE_MASTER_KEY"
        )
    key_file = key_file_path(db, settings)
    if key_file.exists():
        return read_key_file(key_file), key_file
    if db.exists() and db.stat().st_size > 0:
        raise MasterKeyMissing(
            "this database exists but no master key was given: set CONFIDANTE_MASTER_KEY "
            "or restore its key file"
        )
    key = new_key()
    write_key_file(key_file, key)
    return key, key_file


def resolve_master_key(db: Path | None, explicit: bytes | str | None, settings: Settings) -> bytes:
    """The master key `Engine.open` would use (see `master_key_source`)."""
    return master_key_source(db, explicit, settings)[0]


__all__ = [
    "Engine",
    "default_rankers",
    "key_file_path",
    "master_key_source",
    "resolve_master_key",
]

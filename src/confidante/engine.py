"""`Engine`: the core every operation goes through: policy -> privacy -> vault -> store -> recall.

Every operation builds a viewer from the context, asks `policy` which partitions and
origins it may touch, and only then loads (decrypts) data. Data a context may not see is
never decrypted for it. Work done through the engine (cleanup, erasure, backup, audit, the
prompt block) lives in `services/`; `confidante.Memory` is this engine plus those services.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from . import policy
from .config import Settings
from .errors import (
    AccessDenied,
    EmptyText,
    IntegrityError,
    InvalidContext,
    InvalidInput,
    MasterKeyMissing,
    NotFound,
)
from .model import Context, Fact, Hit, OriginKind, Scope, Tier, normalize_actor
from .policy import PartitionRef, Viewer
from .privacy import guard
from .recall.index import IndexedFact, PartitionIndex
from .recall.ranking import BM25, Candidates, Pipeline, Ranker
from .store import EventRow, FactRow, PartitionRow, Store
from .store.postgres import PostgresStore, is_postgres_url
from .store.sqlite import SQLiteStore
from .vault.crypto import key_file_for, new_key, parse_master_key, read_key_file, write_key_file
from .vault.keyfile import recover_key_file
from .vault.keyring import Keyring
from .vault.records import open_fact, scope_of, seal_fact, to_ms

Clock = Callable[[], datetime]
MAX_TEXT_CHARS = 20_000


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
    ) -> None:
        self.store = store
        self.settings = settings or Settings()
        self.owners: frozenset[str] = frozenset(normalize_actor(o) for o in owner_ids)
        self.clock: Clock = clock or _utcnow
        self.keys = Keyring(store, master_key)
        self._indexes: dict[str, PartitionIndex] = {}
        self._lock = threading.RLock()
        self.pipeline = Pipeline(rankers or default_rankers(self.settings))

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
    ) -> Self:
        """Open (creating if needed) a memory: a SQLite file path, or a `postgresql://` URL.

        The master key comes from the argument, else `CONFIDANTE_MASTER_KEY`, else the key
        file (`CONFIDANTE_KEY_FILE`, or beside a SQLite database, created with mode 0600 for
        a new one).
        """
        settings = settings or Settings()
        owners = list(owner_ids) if owner_ids is not None else list(settings.owner_ids)
        target = os.fspath(path) if path is not None else str(settings.db)
        store: Store
        if is_postgres_url(target):
            key = resolve_master_key(None, master_key, settings)
            store = PostgresStore(target)
        else:
            # finish or undo a key rotation that a crash interrupted
            recover_key_file(Path(target), key_file_path(Path(target), settings))
            key = resolve_master_key(Path(target), master_key, settings)
            store = SQLiteStore(target)
        try:
            return cls(store, master_key=key, owner_ids=owners, settings=settings, clock=clock)
        except BaseException:
            store.close()
            raise

    def close(self) -> None:
        with self._lock:
            self._indexes.clear()
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
        ordered = [o for o in self.settings.owner_ids if o in self.owners]
        return ordered[0] if ordered else (min(self.owners) if self.owners else None)

    def viewer(self, ctx: Context, query: str = "") -> Viewer:
        if not isinstance(ctx, Context):
            raise InvalidContext("a Context is required (use Context.dm(...), Context.guild(...))")
        return policy.viewer(ctx, self.owners, self.keys.key, query=query)

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
        with self._lock:
            if pid is None:
                self._indexes.clear()
            else:
                self._indexes.pop(pid, None)

    def decrypt(self, row: FactRow) -> IndexedFact | None:
        """Open one stored row; None when its partition's key has been destroyed."""
        dk = self.keys.data_key(row.partition_id, row.scope, create=False)
        return None if dk is None else _indexed(dk, row)

    def reseal(
        self, row: FactRow, fact: Fact, vector: Any = None, embedder: str | None = None
    ) -> FactRow:
        dk = self.keys.data_key(row.partition_id, row.scope, create=False)
        if dk is None:
            raise IntegrityError("this partition's key was destroyed")
        return seal_fact(dk, row, fact, vector, embedder)

    def ttl_for(self, scope: Scope, kind: str) -> timedelta:
        s = self.settings
        days = s.ttl_days_by_kind.get(
            kind, s.ttl_days_by_scope.get(scope.value, s.default_ttl_days)
        )
        return timedelta(days=days)

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
    ) -> Fact:
        """Store one fact where the policy says this context may write it."""
        return self.remember_many(
            ctx,
            [text],
            namespace,
            kind=kind,
            source_skill=source_skill,
            confidence=confidence,
            ttl=ttl,
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
    ) -> list[Fact]:
        """Store several facts in one transaction, all under the same namespace. Nothing is
        stored if any one of them is refused.

        `embed_context=n` embeds each text together with the n texts before it in `texts`
        (a transcript's previous turns), so a reply like "yes, last week!" is found by what
        it answers. Only the vector sees the context; the stored text is the text itself.

        History keeps its dates: `created_at` (one datetime, or one per text) is when each
        entry was first said, and its expiry counts from then (`ttl`, likewise one or one
        per text, else the configured lifetime). Only the owner may date history: `ctx`
        must be owner-private, or `authority` an owner-private context that vouches for
        entries written in `ctx` (an import writing what Alice said in her DM). An entry
        already past its expiry goes straight to the encrypted archive, as cleanup would
        have moved it, and is never recalled: its returned fact has `expires_at <= now`."""
        if isinstance(texts, str) or not isinstance(texts, Sequence):
            raise InvalidInput("texts must be a list of strings")
        clean = [_check_text(t) for t in texts]
        ttls = _per_text(ttl, len(clean), "ttl")
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
            target = policy.resolve_write(ctx, self.owners, namespace)
        except AccessDenied as e:
            self.deny(ctx, e.code, e.scope)
            raise
        guard.check_label(kind, "kind")
        guard.check_label(source_skill, "source skill")
        guarded = [guard.check_text(t, target.scope, self.settings.privacy_mode) for t in clean]

        ref = policy.write_partition(target, self.keys.key)
        origin_kind, origin_raw = policy.origin_of(ctx, self.owners)
        domain = policy.origin_domain(origin_kind)
        now = self.now()
        default_ttl = self.ttl_for(target.scope, kind)
        born = born or [now] * len(guarded)
        expiries = [b + (default_ttl if t is None else t) for b, t in zip(born, ttls, strict=True)]
        texts = [g.text for g in guarded]
        vectors = self._embed(
            [" ".join(texts[max(0, i - embed_context) : i + 1]) for i in range(len(texts))]
        )
        dk = self.keys.data_key(ref.id, ref.scope.value, create=True)
        if dk is None:
            raise IntegrityError("this partition's key was destroyed")
        # One timestamp for an undated batch, so ids in ascending order keep the texts' order:
        # the store reads a partition by (created, id), and a transcript's lines stay in
        # sequence. Dated history is ordered by its dates.
        ids = sorted(uuid.uuid4().hex for _ in guarded)
        rows, facts, expired = [], [], []
        for i, g in enumerate(guarded):
            fact = Fact(
                id=ids[i],
                scope=target.scope,
                text=g.text,
                subject=target.subject,
                community=target.community,
                origin=f"{origin_kind.value}:{origin_raw}" if origin_raw else origin_kind.value,
                author=ctx.actor,
                tier=Tier.INTERNAL,
                kind=kind,
                source_skill=source_skill,
                confidence=float(confidence),
                created_at=born[i],
                updated_at=born[i],
                expires_at=expiries[i],
                changes=g.changes,
            )
            row = FactRow(
                id=fact.id,
                partition_id=ref.id,
                scope=target.scope.value,
                community_key=ref.key if target.scope is Scope.GUILD else None,
                subject_key=self.keys.key("actor", target.subject) if target.subject else None,
                author_key=self.keys.key("actor", ctx.actor) if ctx.actor else None,
                origin_kind=origin_kind.value,
                origin_key=self.keys.key(domain, origin_raw) if domain and origin_raw else None,
                tier=Tier.INTERNAL.value,
                kind=kind,
                source_skill=source_skill,
                created_at=to_ms(born[i]),
                updated_at=to_ms(born[i]),
                expires_at=to_ms(expiries[i]),
                confidence=float(confidence),
                ciphertext=b"",
            )
            sealed = seal_fact(
                dk, row, fact, None if vectors is None else vectors[i], self._vectors_by()
            )
            (expired if expiries[i] <= now else rows).append(sealed)
            facts.append(fact)
        self.store.insert_facts(rows)
        if expired:  # dated history already past its lifetime: archived, never recalled
            grace = to_ms(now + timedelta(days=self.settings.archive_grace_days))
            self.store.archive_facts(expired, now.strftime("%Y-%m"), grace)
        return facts

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
            out.append(d)
        return out

    def update(self, ctx: Context, fact_id: str, text: str) -> Fact:
        """Replace a fact's text; the same visibility and authorship rules as `forget`."""
        text = _check_text(text)
        v, row, old = self._visible_row(ctx, fact_id)
        self._require_may_forget(ctx, v, row)
        g = guard.check_text(text, scope_of(row.partition_id), self.settings.privacy_mode)
        now = self.now()
        fact = replace(old.fact, text=g.text, updated_at=now, changes=g.changes)
        vectors = self._embed([g.text])
        new_row = replace(row, updated_at=to_ms(now))
        self.store.update_facts(
            [
                self.reseal(
                    new_row, fact, None if vectors is None else vectors[0], self._vectors_by()
                )
            ]
        )
        return fact

    def _vectors_by(self) -> str | None:
        """The name of the embedder whose vectors `_embed` makes."""
        for r in self.pipeline.rankers:
            embedder = getattr(r, "embedder", None)
            if getattr(r, "embed_documents", None) is not None and embedder is not None:
                return str(embedder.name)
        return None

    def _embed(self, texts: list[str]) -> Any:
        """Vectors for rankers that keep one per fact (the semantic ranker); None otherwise."""
        for r in self.pipeline.rankers:
            embed = getattr(r, "embed_documents", None)
            if embed is not None:
                return embed(texts)
        return None

    # -- reading ---------------------------------------------------------------------------------
    def _load_index(self, row: PartitionRow) -> PartitionIndex | None:
        cached = self._indexes.get(row.id)
        if cached is not None and cached.version == row.version:
            return cached
        dk = self.keys.unwrap(row)
        if dk is None:
            self._indexes.pop(row.id, None)
            return None
        facts = [_indexed(dk, r) for r in self.store.facts_in(row.id)]
        index = PartitionIndex(partition_ref(row.id), row.version, facts)
        if cached is not None:
            index.inherit(cached)
        for r in self.pipeline.rankers:
            prepare = getattr(r, "prepare", None)
            if prepare is not None:
                prepare(index)
        self._indexes[row.id] = index
        return index

    def candidates(self, v: Viewer, pool: policy.Pool) -> list[Candidates]:
        """Visible facts of every granted partition in the pool, decrypted and indexed."""
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
                    out.append(Candidates(index, index.mask(grant, now)))
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
    ) -> list[Hit]:
        """Rank what this context may see against `query`; best `k` first."""
        if not isinstance(query, str):
            raise InvalidInput("query must be a string")
        if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k > 1000:
            raise InvalidInput("k must be an integer between 1 and 1000")
        if min_score is not None and not isinstance(min_score, int | float):
            raise InvalidInput("min_score must be a number")
        v = self.viewer(ctx, query)
        try:
            pool = policy.recall_pool(ctx, v, self.keys.key, subjects=subjects, guilds=guilds)
        except AccessDenied as e:
            self.deny(ctx, e.code, None)
            raise
        cands = self.candidates(v, pool)
        if not query.strip():
            hits = [Hit(f.fact, 0.0, superseded_by=newer) for f, newer in _newest(cands)[:k]]
        else:
            hits = [
                Hit(
                    cands[r.partition].index.facts[r.row].fact,
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
        by_scope: dict[tuple[Scope, str], list[str]] = {}
        for f in facts:
            by_scope.setdefault((f.scope, f.kind), []).append(f.id)
        for (scope, kind), ids in by_scope.items():
            until = to_ms(self.now() + self.ttl_for(scope, kind))
            self.store.touch_facts(ids, until)
            with self._lock:
                for index in self._indexes.values():
                    index.extend_expiry(set(ids), until)

    def list(self, ctx: Context, *, limit: int | None = None) -> list[Fact]:
        """Every fact this context may see, newest first."""
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise InvalidInput("limit must be a non-negative integer")
        v = self.viewer(ctx)
        cands = self.candidates(v, policy.visible_pool(v))
        self._note_reads(ctx, cands, "list")
        facts = [f.fact for f, _ in _newest(cands)]
        return facts[:limit] if limit is not None else facts

    def _visible_row(self, ctx: Context, fact_id: str) -> tuple[Viewer, FactRow, IndexedFact]:
        v = self.viewer(ctx)
        if not isinstance(fact_id, str) or not fact_id or len(fact_id) > 64:
            raise NotFound("no such fact")
        row = self.store.get_fact(fact_id)
        if row is not None:
            ref = partition_ref(row.partition_id)
            visible = policy.can_read(v, ref, OriginKind(row.origin_kind), row.origin_key)
            alive = row.expires_at is None or row.expires_at > to_ms(self.now())
            if visible and alive:
                opened = self.decrypt(row)
                if opened is not None:
                    if scope_of(row.partition_id) is Scope.OWNER:
                        self._log_owner_read(ctx, "get")
                    return v, row, opened
            if not visible:
                self.deny(ctx, "not_visible", row.scope)
        raise NotFound("no such fact")

    def get(self, ctx: Context, fact_id: str) -> Fact:
        """One fact by id; invisible and nonexistent ids both raise NotFound."""
        return self._visible_row(ctx, fact_id)[2].fact

    def _require_may_forget(self, ctx: Context, v: Viewer, row: FactRow) -> None:
        if not policy.may_forget(v, row.author_key, row.subject_key):
            self.deny(ctx, "not_author", row.scope)
            raise AccessDenied("not_author", scope=row.scope)

    def forget(self, ctx: Context, fact_id: str) -> None:
        """Delete one fact: by its writer, its subject, or the owner in an owner-private context."""
        v, row, _ = self._visible_row(ctx, fact_id)
        self._require_may_forget(ctx, v, row)
        self.store.delete_facts([row.id])

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
        name = _check_label_text(skill, "skill")
        guard.check_label(name, "skill")
        calls = _check_count(count)
        self.store.record_skill(name, bool(ok), self._stat_time(at), calls)

    def record_pattern(
        self, trigger: str, skills: Sequence[str], *, count: int = 1, at: datetime | None = None
    ) -> None:
        """Count an observed pattern: a trigger (generalised) and the skills it led to."""
        text = guard.public_text(_check_label_text(trigger, "trigger", 200))
        if isinstance(skills, str) or not skills:
            raise InvalidInput("skills must be a non-empty list of skill names")
        names = sorted({_check_label_text(s, "skill") for s in skills})
        for name in names:
            guard.check_label(name, "skill")
        seen = _check_count(count)
        self.store.record_pattern(text, ",".join(names), self._stat_time(at), seen)

    def _stat_time(self, at: datetime | None) -> int:
        if at is None:
            return to_ms(self.now())
        if not isinstance(at, datetime):
            raise InvalidInput("at must be a datetime")
        return to_ms(min(at if at.tzinfo else at.replace(tzinfo=UTC), self.now()))

    def public_stats(self) -> dict[str, Any]:
        """The T1 store: `{"skill_stats": {...}, "patterns_observed": [...]}`."""
        return {
            "skill_stats": {
                s.skill: {
                    "calls": s.calls,
                    "success_rate": round(s.successes / s.calls, 4) if s.calls else 0.0,
                    "last_used": _day(s.last_used),
                }
                for s in self.store.skill_stats()
            },
            "patterns_observed": [
                {"trigger": p.trigger, "skills_used": p.skills.split(","), "count": p.count}
                for p in self.store.patterns()
            ],
        }

    # -- logs and keys kept by the store ----------------------------------
    def cleanup_history(self, ctx: Context | None = None, limit: int = 100) -> list[str]:
        """The kept log lines, newest first. They hold counts only; a given context must
        still be owner-private (adapters pass theirs)."""
        if ctx is not None:
            self.require_owner_private(ctx)
        return [line for _, line in self.store.cleanup_log(limit)]

    def rotate_master_key(self, new_key: bytes | str) -> None:
        """Re-wrap every data key under a new master key; facts are not re-encrypted."""
        self.keys.rotate(new_key)


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


def _indexed(dk: bytes, row: FactRow) -> IndexedFact:
    """Open a stored row into what recall indexes: the fact plus its keyed metadata."""
    fact, vector, embedder = open_fact(dk, row)
    return IndexedFact(
        fact=fact,
        origin_kind=OriginKind(row.origin_kind),
        origin_key=row.origin_key,
        author_key=row.author_key,
        subject_key=row.subject_key,
        created_ms=row.created_at,
        expires_ms=row.expires_at,
        vector=vector,
        embedder=embedder,
    )


def _day(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).date().isoformat()


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


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise InvalidInput("text must be a string")
    stripped = text.strip()
    if not stripped:
        raise EmptyText("text is empty")
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
    if ttl is not None and (not isinstance(ttl, timedelta) or ttl <= timedelta(0)):
        raise InvalidInput("ttl must be a positive timedelta")


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


def resolve_master_key(db: Path | None, explicit: bytes | str | None, settings: Settings) -> bytes:
    """Argument, else environment, else the key file (configured, or beside a SQLite file).

    A brand-new SQLite database gets a fresh key file (0600); an existing one without any key
    is an error rather than a silently different key. A server database needs a given key."""
    if explicit is not None:
        return parse_master_key(explicit)
    if settings.master_key is not None:
        return parse_master_key(settings.master_key.get_secret_value())
    if db is None:
        if settings.key_file is not None:
            return read_key_file(settings.key_file)
        raise MasterKeyMissing(
            "a server database needs CONFIDANTE_MASTER_KEY, CONFIDANTE_KEY_FILE or master_key="
        )
    key_file = key_file_path(db, settings)
    if key_file.exists():
        return read_key_file(key_file)
    if db.exists() and db.stat().st_size > 0:
        raise MasterKeyMissing(
            "this database exists but no master key was given: set CONFIDANTE_MASTER_KEY "
            "or restore its key file"
        )
    key = new_key()
    write_key_file(key_file, key)
    return key


__all__ = ["Engine", "default_rankers", "key_file_path", "resolve_master_key"]

"""`Memory`: the one entry point. It asks the policy, encrypts, stores, indexes and ranks.

Every operation builds a viewer from the context, asks `policy` which partitions and
origins it may touch, and only then loads (decrypts) data. Data a context may not see is
never decrypted for it.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType

from . import policy
from .config import Settings
from .crypto import (
    key_file_for,
    keyed_id,
    new_key,
    open_sealed,
    parse_master_key,
    read_key_file,
    seal,
    write_key_file,
)
from .errors import (
    AccessDenied,
    ConfidanteError,
    EmptyText,
    IntegrityError,
    InvalidContext,
    InvalidInput,
    MasterKeyMissing,
    NotFound,
    WrongMasterKey,
)
from .index import IndexedFact, PartitionIndex
from .model import Context, Fact, Hit, OriginKind, Scope, Tier, normalize_actor
from .policy import PartitionRef, Viewer
from .ranking import BM25, Candidates, Pipeline, Ranker
from .store import DenialRow, FactRow, PartitionRow, Store
from .store.postgres import PostgresStore, is_postgres_url
from .store.sqlite import SQLiteStore

Clock = Callable[[], datetime]
MAX_TEXT_CHARS = 20_000
_KEYCHECK = b"confidante-keycheck-v1"


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _ms(dt: datetime) -> int:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() * 1000)


def _dt(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC)


def _partition_ref(row_scope: str, pid: str) -> PartitionRef:
    scope = Scope(row_scope)
    _, _, key = pid.partition(":")
    return PartitionRef(scope, key)


class Memory:
    """Scoped, gated, encrypted memory. Open with `Memory.open(path)`."""

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
        self._master = master_key
        self._secret = self._open_keyring()
        self._data_keys: dict[str, bytes] = {}
        self._indexes: dict[str, PartitionIndex] = {}
        self._lock = threading.RLock()
        self.pipeline = Pipeline(rankers or [BM25()])

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
    ) -> Memory:
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
            key = resolve_master_key(Path(target), master_key, settings)
            store = SQLiteStore(target)
        try:
            return cls(store, master_key=key, owner_ids=owners, settings=settings, clock=clock)
        except BaseException:
            store.close()
            raise

    def _open_keyring(self) -> bytes:
        check = self.store.get_meta("keycheck")
        if check is None:
            secret = new_key()
            self.store.set_meta("installation_secret", seal(self._master, secret, b"secret"))
            self.store.set_meta("keycheck", seal(self._master, _KEYCHECK, b"keycheck"))
            return secret
        try:
            if open_sealed(self._master, check, b"keycheck") != _KEYCHECK:
                raise IntegrityError("key check mismatch")
            wrapped = self.store.get_meta("installation_secret")
            assert wrapped is not None
            return open_sealed(self._master, wrapped, b"secret")
        except IntegrityError:
            raise WrongMasterKey("the master key does not open this database") from None

    def close(self) -> None:
        with self._lock:
            self._indexes.clear()
            self._data_keys.clear()
            self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- identity and keys -----------------------------------------------------------------------
    def _key(self, domain: str, raw: str) -> str:
        return keyed_id(self._secret, domain, raw)

    def _viewer(self, ctx: Context, query: str = "") -> Viewer:
        if not isinstance(ctx, Context):
            raise InvalidContext("a Context is required (use Context.dm(...), Context.guild(...))")
        return policy.viewer(ctx, self.owners, self._key, query=query)

    def _data_key(self, ref: PartitionRef, *, create: bool) -> bytes | None:
        pid = ref.id
        dk = self._data_keys.get(pid)
        if dk is not None:
            return dk
        row = self.store.get_partition(pid)
        if row is None:
            if not create:
                return None
            row = self.store.ensure_partition(
                pid, ref.scope.value, seal(self._master, new_key(), self._wrap_aad(pid))
            )
        return self._unwrap(row)

    def _unwrap(self, row: PartitionRow) -> bytes | None:
        if row.wrapped_key is None:
            return None  # destroyed: nothing in this partition can be read again
        dk = open_sealed(self._master, row.wrapped_key, self._wrap_aad(row.id))
        self._data_keys[row.id] = dk
        return dk

    @staticmethod
    def _wrap_aad(pid: str) -> bytes:
        return f"partition\x00{pid}".encode()

    @staticmethod
    def _fact_aad(pid: str, fid: str) -> bytes:
        return f"fact\x00{pid}\x00{fid}".encode()

    # -- denials ---------------------------------------------------------------------------------
    def _deny(self, ctx: Context, code: str, scope: str | None) -> None:
        self.store.record_denial(DenialRow(_ms(self.clock()), code, scope, ctx.surface.value))

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
        ttl: timedelta | None = None,
    ) -> list[Fact]:
        """Store several facts in one transaction, all under the same namespace."""
        if isinstance(texts, str):
            raise InvalidInput("texts must be a list of strings")
        clean = [_check_text(t) for t in texts]
        _check_meta(kind, source_skill, confidence, ttl)
        self._viewer(ctx)  # validates the context
        try:
            target = policy.resolve_write(ctx, self.owners, namespace)
        except AccessDenied as e:
            self._deny(ctx, e.code, e.scope)
            raise
        ref = policy.write_partition(target, self._key)
        origin_kind, origin_raw = policy.origin_of(ctx, self.owners)
        domain = policy.origin_domain(origin_kind)
        origin_key = self._key(domain, origin_raw) if domain and origin_raw else None
        now = self.clock()
        expires = now + (ttl if ttl is not None else self._default_ttl(target.scope))
        author = ctx.actor
        with self._lock:
            dk = self._data_key(ref, create=True)
            if dk is None:
                raise IntegrityError("this partition's key was destroyed")
            rows, facts = [], []
            for text in clean:
                fid = uuid.uuid4().hex
                fact = Fact(
                    id=fid,
                    scope=target.scope,
                    text=text,
                    subject=target.subject,
                    community=target.community,
                    origin=f"{origin_kind.value}:{origin_raw}" if origin_raw else origin_kind.value,
                    author=author,
                    tier=Tier.INTERNAL,
                    kind=kind,
                    source_skill=source_skill,
                    confidence=float(confidence),
                    created_at=now,
                    updated_at=now,
                    expires_at=expires,
                )
                payload = json.dumps(
                    {
                        "t": text,
                        "s": fact.subject,
                        "c": fact.community,
                        "a": author,
                        "o": fact.origin,
                    },
                    separators=(",", ":"),
                ).encode()
                rows.append(
                    FactRow(
                        id=fid,
                        partition_id=ref.id,
                        scope=target.scope.value,
                        community_key=ref.key if target.scope is Scope.GUILD else None,
                        subject_key=self._key("actor", target.subject) if target.subject else None,
                        author_key=self._key("actor", author) if author else None,
                        origin_kind=origin_kind.value,
                        origin_key=origin_key,
                        tier=Tier.INTERNAL.value,
                        kind=kind,
                        source_skill=source_skill,
                        created_at=_ms(now),
                        updated_at=_ms(now),
                        expires_at=_ms(expires),
                        confidence=float(confidence),
                        ciphertext=seal(dk, payload, self._fact_aad(ref.id, fid)),
                    )
                )
                facts.append(fact)
            self.store.insert_facts(rows)
        return facts

    def _default_ttl(self, scope: Scope) -> timedelta:
        days = self.settings.default_ttl_days
        if scope is Scope.OWNER and self.settings.owner_ttl_days is not None:
            days = self.settings.owner_ttl_days
        return timedelta(days=days)

    # -- reading ---------------------------------------------------------------------------------
    def _decrypt(self, row: FactRow, dk: bytes) -> IndexedFact:
        aad = self._fact_aad(row.partition_id, row.id)
        payload = json.loads(open_sealed(dk, row.ciphertext, aad))
        fact = Fact(
            id=row.id,
            scope=Scope(row.scope),
            text=payload["t"],
            subject=payload.get("s"),
            community=payload.get("c"),
            origin=payload.get("o", row.origin_kind),
            author=payload.get("a"),
            tier=Tier(row.tier),
            kind=row.kind,
            source_skill=row.source_skill,
            confidence=row.confidence,
            created_at=_dt(row.created_at),
            updated_at=_dt(row.updated_at),
            expires_at=_dt(row.expires_at),
        )
        return IndexedFact(
            fact=fact,
            origin_kind=OriginKind(row.origin_kind),
            origin_key=row.origin_key,
            author_key=row.author_key,
            subject_key=row.subject_key,
            created_ms=row.created_at,
            expires_ms=row.expires_at,
        )

    def _load_index(self, row: PartitionRow) -> PartitionIndex | None:
        cached = self._indexes.get(row.id)
        if cached is not None and cached.version == row.version:
            return cached
        dk = self._data_keys.get(row.id) or self._unwrap(row)
        if dk is None:
            self._indexes.pop(row.id, None)
            return None
        facts = [self._decrypt(r, dk) for r in self.store.facts_in(row.id)]
        index = PartitionIndex(_partition_ref(row.scope, row.id), row.version, facts)
        self._indexes[row.id] = index
        return index

    def _candidates(self, v: Viewer, pool: policy.Pool) -> list[Candidates]:
        """Visible facts of every granted partition in the pool, decrypted and indexed."""
        rows = {r.id: r for r in self.store.partitions(s.value for s in pool.all_of)}
        named = [p.id for p in pool.partitions if p.id not in rows]
        rows.update((r.id, r) for r in self.store.get_partitions(named))
        now = _ms(self.clock())
        out = []
        with self._lock:
            for pid in sorted(rows):
                row = rows[pid]
                grant = policy.grant_for(v, _partition_ref(row.scope, row.id))
                if grant is None:
                    continue
                index = self._load_index(row)
                if index is not None and len(index):
                    out.append(Candidates(index, index.mask(grant, now)))
        return out

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
        v = self._viewer(ctx, query)
        try:
            pool = policy.recall_pool(ctx, v, self._key, subjects=subjects, guilds=guilds)
        except AccessDenied as e:
            self._deny(ctx, e.code, None)
            raise
        cands = self._candidates(v, pool)
        if not query.strip():
            return [Hit(f, 0.0) for f in _newest(cands)[:k]]
        hits = []
        for r in self.pipeline.rank(query, cands, k):
            if min_score is not None and r.score < min_score:
                continue
            hits.append(Hit(cands[r.partition].index.facts[r.row].fact, r.score, r.parts))
        return hits

    def list(self, ctx: Context, *, limit: int | None = None) -> list[Fact]:
        """Every fact this context may see, newest first."""
        v = self._viewer(ctx)
        facts = _newest(self._candidates(v, policy.visible_pool(v)))
        return facts[:limit] if limit is not None else facts

    def _visible_row(self, ctx: Context, fact_id: str) -> tuple[Viewer, FactRow, IndexedFact]:
        v = self._viewer(ctx)
        if not isinstance(fact_id, str) or not fact_id or len(fact_id) > 64:
            raise NotFound("no such fact")
        row = self.store.get_fact(fact_id)
        if row is not None:
            ref = _partition_ref(row.scope, row.partition_id)
            visible = policy.can_read(v, ref, OriginKind(row.origin_kind), row.origin_key)
            alive = row.expires_at is None or row.expires_at > _ms(self.clock())
            if visible and alive:
                with self._lock:
                    dk = self._data_key(ref, create=False)
                if dk is not None:
                    return v, row, self._decrypt(row, dk)
            if not visible:
                self._deny(ctx, "not_visible", row.scope)
        raise NotFound("no such fact")

    def get(self, ctx: Context, fact_id: str) -> Fact:
        """One fact by id; invisible and nonexistent ids both raise NotFound."""
        return self._visible_row(ctx, fact_id)[2].fact

    def forget(self, ctx: Context, fact_id: str) -> None:
        """Delete one fact: by its writer, its subject, or the owner in an owner-private context."""
        v, row, _ = self._visible_row(ctx, fact_id)
        if not policy.may_forget(v, row.author_key, row.subject_key):
            self._deny(ctx, "not_author", row.scope)
            raise AccessDenied("not_author", scope=row.scope)
        self.store.delete_fact(row.id)

    # -- owner tools -----------------------------------------------------------------------------
    def denials(self, ctx: Context, limit: int = 100) -> list[DenialRow]:
        """The denial log (code, scope, surface, time). The owner's alone, in private."""
        v = self._viewer(ctx)
        if not v.owner_private:
            code = "owner_private_context_required" if v.is_owner else "owner_required"
            self._deny(ctx, code, None)
            raise AccessDenied(code)
        return self.store.denials(limit)

    # -- sealed settings for adapters (agent keys, dashboard credentials) ------------------------
    def sealed_meta(self, name: str) -> bytes | None:
        """A small value kept encrypted under the master key (e.g. an adapter's settings)."""
        blob = self.store.get_meta(f"sealed:{name}")
        return None if blob is None else open_sealed(self._master, blob, f"meta\x00{name}".encode())

    def set_sealed_meta(self, name: str, value: bytes) -> None:
        self.store.set_meta(f"sealed:{name}", seal(self._master, value, f"meta\x00{name}".encode()))

    # -- surfaces still being built (issues 3-5); signatures are final ---------------------------
    def update(self, ctx: Context, fact_id: str, text: str) -> Fact:
        """Replace a fact's text; same visibility and authorship rules as `forget`."""
        raise NotImplementedError

    def prompt_context(self, ctx: Context, query: str, max_tokens: int = 800) -> str:
        """Identity block plus recalled facts grouped by pool, within `max_tokens`."""
        raise NotImplementedError

    def forget_subject(self, ctx: Context, actor: str) -> dict[str, int]:
        """Erase everything about `actor` and destroy their keys (owner in private, or self)."""
        raise NotImplementedError

    def forget_guild(self, ctx: Context, guild: str) -> dict[str, int]:
        """Erase a community's memory (the owner, in private)."""
        raise NotImplementedError

    def record_skill_use(self, skill: str, ok: bool = True) -> None:
        raise NotImplementedError

    def record_pattern(self, trigger: str, skills: Sequence[str]) -> None:
        raise NotImplementedError

    def public_stats(self) -> dict[str, object]:
        """T1: {"skill_stats": {skill: {calls, success_rate, last_used}}, "patterns_observed": []}"""
        raise NotImplementedError

    def audit(self) -> dict[str, object]:
        """The privacy checklist: {"ok": bool, "findings": [{"check", "detail"}], "checks": [...]}"""
        raise NotImplementedError

    def cleanup(self, now: datetime | None = None, dry_run: bool = False) -> dict[str, object]:
        """The cleanup protocol; returns counts and the log line."""
        raise NotImplementedError

    def cleanup_history(self, ctx: Context) -> list[str]:
        raise NotImplementedError


def _newest(cands: Sequence[Candidates]) -> list[Fact]:
    items = [c.index.facts[i] for c in cands for i in (c.mask.nonzero()[0])]
    items.sort(key=lambda f: (f.created_ms, f.fact.id), reverse=True)
    return [f.fact for f in items]


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
    return stripped


def _check_meta(kind: object, source_skill: object, confidence: object, ttl: object) -> None:
    if not isinstance(kind, str) or not kind.strip() or len(kind) > 64:
        raise InvalidInput("kind must be a short non-empty string")
    if source_skill is not None and (not isinstance(source_skill, str) or len(source_skill) > 128):
        raise InvalidInput("source_skill must be a short string")
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not (0.0 <= float(confidence) <= 1.0)
    ):
        raise InvalidInput("confidence must be a number between 0 and 1")
    if ttl is not None and (not isinstance(ttl, timedelta) or ttl <= timedelta(0)):
        raise InvalidInput("ttl must be a positive timedelta")


def resolve_master_key(db: Path | None, explicit: bytes | str | None, settings: Settings) -> bytes:
    """Argument, else environment, else the key file (configured, or beside a SQLite file).

    A brand-new SQLite database gets a fresh key file (0600); an existing one without any key
    is an error rather than a silently different key. A server database needs a given key."""
    if explicit is not None:
        return parse_master_key(explicit)
    if settings.master_key is not None:
        return parse_master_key(settings.master_key.get_secret_value())
    if settings.key_file is not None:
        return read_key_file(settings.key_file)
    if db is None:
        raise MasterKeyMissing(
            "a server database needs CONFIDANTE_MASTER_KEY, CONFIDANTE_KEY_FILE or master_key="
        )
    key_file = key_file_for(db)
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


__all__ = ["ConfidanteError", "Memory", "resolve_master_key"]

"""Writing: remember (policy, guard, the same sentence refreshed), update with its
history, and the embeddings written with each fact."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from .. import policy
from ..errors import (
    AccessDenied,
    ConcurrentChange,
    InvalidContext,
    InvalidInput,
    NotFound,
)
from ..model import Context, Fact, OriginKind, Scope, Tier
from ..policy import PartitionRef
from ..privacy import guard
from ..privacy.metadata import check_metadata
from ..store import FactRow
from ..vault.crypto import (
    text_key,
)
from ..vault.records import Opened, from_ms, scope_of, to_ms
from .parts import (
    EPOCH,
    HISTORY_KEPT,
    WRITE_RETRIES,
    _check_context,
    _check_meta,
    _check_text,
    _check_ttl,
    _per_text,
    _quiet,
    _seal,
    _seal_all,
    _shown,
    same_sentence,
)
from .state import State


class Writes(State):
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
        _check_context(ctx)
        open_spaces = self.spaces_open(ctx)  # read once: the registry is read per operation
        self.viewer(ctx, spaces=open_spaces)
        try:
            target = policy.resolve_write(ctx, self.owners, namespace, open_spaces)
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
        for attempt in range(WRITE_RETRIES):
            # The key is checked again inside the insert's transaction: if a forget destroyed
            # it (or a re-key replaced it) since it was read, nothing is written under it and
            # the batch is sealed again under the partition's key as it is now.
            if attempt:
                wrapped, now_dk = self._partition_key(ref)
            else:
                now_dk = dk  # as read above: the insert's check says whether it still is
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
                rows.append(_seal(found[1], row, o))
            try:
                self.store.update_facts(rows, keys)
            except ConcurrentChange:
                continue
            for pid in keys:  # the stale indexes hold the text just overwritten
                self.invalidate(pid)
            return
        raise ConcurrentChange("a partition's key kept changing; try again")

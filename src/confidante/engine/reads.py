"""Reading: partitions loaded (or caught up) into their indexes, recall, list, get and
forget by id, all through the read rule."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

import numpy as np

from .. import policy
from ..errors import (
    AccessDenied,
    AmbiguousId,
    ConcurrentChange,
    IntegrityError,
    InvalidInput,
    NotFound,
)
from ..model import Context, Fact, Hit, OriginKind, Scope
from ..policy import Viewer
from ..recall.cache import grown_bytes
from ..recall.filters import Predicate, compile_filters
from ..recall.index import IndexedFact, PartitionIndex
from ..recall.ranking import Candidates
from ..recall.reading import Reading, sealed_reading
from ..store import EventRow, FactRow, PartitionRow
from ..vault.records import Opened, scope_of, to_ms
from .parts import (
    ID_PREFIX,
    MAX_PREFIX_MATCHES,
    WRITE_RETRIES,
    _indexed,
    _newest,
    _open,
    _shown,
    partition_ref,
)
from .state import State

log = logging.getLogger("confidante.engine")


class Reads(State):
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
        # One transaction for the rows and their renewal, not one per hit.
        read = {f.id: f for f in facts}
        with self.store.transaction():
            for row in self.store.get_facts(list(read)):
                f = read[row.id]
                lifetime = (
                    timedelta(milliseconds=row.ttl_ms)
                    if row.ttl_ms is not None
                    else self.ttl_for(f.scope, f.kind)
                )
                by_until.setdefault(to_ms(now + lifetime), []).append(row.id)
            for until, ids in by_until.items():
                self.store.touch_facts(ids, until)
        for until, ids in by_until.items():
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

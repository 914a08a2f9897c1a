"""Lifecycle: the cleanup protocol, real forgetting, master-key rotation, backup and restore.

Forgetting is real, and how depends on the engine (`Store.erases_physically`):
- SQLite overwrites deleted rows (secure_delete) and truncates the WAL after every erasing
  transaction, so the bytes are gone from the files when the call returns.
- PostgreSQL keeps old row versions (dead tuples, `pg_wal`) for an unbounded time, so erasure
  ends in key destruction: every partition that had something erased gets a fresh data key
  (what is left re-encrypted), then the master key is rotated, re-wrapping only live keys.
  The data keys that opened the erased rows then exist only wrapped under the retired master
  key, which is stored nowhere (`complete_erasure`).
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .. import policy
from ..engine import same_sentence
from ..errors import (
    AccessDenied,
    ConcurrentChange,
    ConfidanteError,
    IntegrityError,
    InvalidInput,
    StoreError,
    WrongMasterKey,
)
from ..model import (
    Context,
    OriginKind,
    Scope,
    community_id,
    legacy_session_key,
    normalize_actor,
    session_key,
)
from ..privacy import guard
from ..store import FactRow
from ..store.base import CLEAN, NEEDS_REKEY
from ..store.sqlite import SQLiteStore, read_meta
from ..vault.crypto import text_key
from ..vault.keyring import keycheck_opens
from ..vault.records import Opened, open_record, reencrypt, scope_of, to_ms
from .spaces import forget_member_everywhere

if TYPE_CHECKING:
    from ..engine import Engine

log = logging.getLogger("confidante.lifecycle")
T = TypeVar("T")
_RETRIES = 8


def _retrying(fn: Callable[[], T]) -> T:
    """Run a multi-step write again when another process changed a key under it."""
    for _ in range(_RETRIES - 1):
        try:
            return fn()
        except ConcurrentChange:
            continue
    return fn()


NEAR_DUPLICATE_JACCARD = 0.9
_WORDS = re.compile(r"\w+")


# --- cleanup protocol ---


def _norm(text: str) -> tuple[str, frozenset[str]]:
    words = _WORDS.findall(text.lower())
    return " ".join(words), frozenset(words)


def _duplicates(facts: list[tuple[FactRow, str]]) -> list[list[FactRow]]:
    """Groups of exact or near-duplicate facts (token Jaccard >= 0.9), newest first."""
    groups: list[tuple[str, frozenset[str], list[FactRow]]] = []
    for row, text in sorted(facts, key=lambda ft: (-ft[0].created_at, ft[0].id)):
        norm, words = _norm(text)
        for g_norm, g_words, members in groups:
            union = len(words | g_words) or 1
            if norm == g_norm or (
                min(len(words), len(g_words)) >= 3
                and len(words & g_words) / union >= NEAR_DUPLICATE_JACCARD
            ):
                members.append(row)
                break
        else:
            groups.append((norm, words, [row]))
    return [members for _, _, members in groups if len(members) > 1]


def cleanup(mem: Engine, *, now: datetime | None = None, dry_run: bool = False) -> dict[str, Any]:
    """Archive expired facts, purge the archive past its grace period, re-scan with today's
    detectors, merge duplicates, drop stale public patterns, compact, and log one line."""
    now = now or mem.now()
    now_ms = to_ms(now)
    store = mem.store

    # 1. expired facts go to the encrypted archive (by month), purged after the grace period
    expired = store.facts_where(expired_before=now_ms)
    grace = to_ms(now + timedelta(days=mem.settings.archive_grace_days))
    purged = 0
    if not dry_run:
        by_month: dict[str, list[FactRow]] = defaultdict(list)
        for row in expired:
            month = datetime.fromtimestamp((row.expires_at or now_ms) / 1000, UTC)
            by_month[month.strftime("%Y-%m")].append(row)
        for month, rows in by_month.items():
            store.archive_facts(rows, month, grace)
        purged = store.purge_archive(now_ms)

    # 2. re-scan every live fact with the current detectors; hits are deleted at once
    # 3. merge duplicates within a partition (same origin and author, so visibility and
    #    forgetting rights do not change), keeping the newest and the longest expiry
    # Rows that cannot be opened are skipped and counted (audit reports them); rows whose
    # partition key was destroyed can never be opened again and are deleted.
    expired_ids = {r.id for r in expired}
    rescanned: list[str] = []
    merged_away: list[str] = []
    extended: list[FactRow] = []
    orphans: list[str] = []
    neighbours: list[str] = []  # embed_context neighbours of deleted facts
    # vectors another embedder made (a database from before an embedder change): recall
    # embeds them again in memory at every load until they are stored anew
    stale: list[str] = []
    unreadable = 0
    for part in store.partitions():
        try:
            dk = mem.keys.unwrap(part)
        except IntegrityError:
            unreadable += len(store.facts_in(part.id))
            continue
        if dk is None:
            orphans += [r.id for r in store.facts_in(part.id)]
            continue
        opened: dict[tuple[str, str | None, str | None], list[tuple[FactRow, str]]] = defaultdict(
            list
        )
        links: dict[str, Opened] = {}
        for row in store.facts_in(part.id):
            if row.id in expired_ids:
                continue
            try:
                record = open_record(dk, row)
            except IntegrityError:
                unreadable += 1
                continue
            links[row.id] = record
            text = record.fact.text
            if guard.t3_categories(text) or (
                scope_of(row.partition_id) is Scope.GLOBAL and not _public_ok(text)
            ):
                rescanned.append(row.id)
                neighbours += record.dependents
                continue
            opened[(row.origin_kind, row.origin_key, row.author_key)].append((row, text))
            if not mem.vector_is_current(record.vector, record.embedder):
                stale.append(row.id)
        for facts in opened.values():
            for group in _duplicates(facts):
                keep, rest = group[0], group[1:]
                expiries = [r.expires_at for r in group]
                longest = None if None in expiries else max(e for e in expiries if e is not None)
                merged_away += [r.id for r in rest]
                for r in rest:
                    neighbours += links[r.id].dependents
                if longest != keep.expires_at:
                    extended.append(replace(keep, expires_at=longest))
    gone = set(rescanned + merged_away + orphans)
    stale = [i for i in stale if i not in gone]
    if not dry_run:
        store.delete_facts(rescanned + merged_away + orphans)
        store.update_facts(extended)
        mem.reembed(list(dict.fromkeys(i for i in neighbours + stale if i not in gone)))

    # 4. outdated public patterns are dropped
    stale_before = to_ms(now - timedelta(days=mem.settings.pattern_max_age_days))
    patterns_dropped = (
        sum(1 for p in store.patterns() if p.last_seen < stale_before)
        if dry_run
        else store.drop_patterns(stale_before)
    )

    # 5. compact, 6. log one line that is kept
    deleted = purged + len(rescanned) + len(orphans)
    line = (
        f"[{now.date().isoformat()}] Memory cleanup: {len(expired)} archived, "
        f"{deleted} deleted, {len(merged_away)} merged"
    )
    erasure: dict[str, int] = {}
    if not dry_run:
        store.compact()
        store.append_cleanup_log(now_ms, line)
        mem.invalidate()
        erasure = finish_erasure(mem)
    return {
        "archived": len(expired),
        "purged": purged,
        "rescanned_deleted": len(rescanned),
        "deleted": deleted,
        "merged": len(merged_away),
        "reembedded": len(stale),
        "patterns_dropped": patterns_dropped,
        "unreadable_rows": unreadable,
        **erasure,
        "dry_run": dry_run,
        "line": line,
    }


def _public_ok(text: str) -> bool:
    try:
        guard.check_text(text, Scope.GLOBAL)
    except ConfidanteError:  # any refusal: it no longer belongs in public memory
        return False
    return True


# --- forgetting ---


def forget_subject(mem: Engine, ctx: Context, actor: str) -> dict[str, int]:
    """Delete every fact about `actor` (all origins) and their DM session history, destroy
    those partitions' keys, and strip their authorship from community facts they wrote."""
    actor = normalize_actor(actor)
    v = mem.viewer(ctx)
    if code := policy.forget_subject_denial(ctx, mem.owners, actor):
        mem.deny(ctx, code, Scope.USER.value)
        raise AccessDenied(code, "only the owner in private, or the person in their own DM")
    key = mem.keys.key
    sk = key("actor", actor)

    def erase() -> dict[str, int]:
        # One transaction: a crash (or a concurrent writer) never leaves a half-forgotten
        # person; a write racing it lands either before (and is erased) or after, in a fresh
        # silo under a fresh key (the store re-checks keys inside every write). A rotation
        # cannot interleave (`stable_keys`, taken before any row lock): it would write the
        # destroyed keys back.
        with mem.store.stable_keys():
            doomed = {policy.user_partition(actor, key).id}
            stripped: list[FactRow] = []
            names: list[str] = []
            for row in mem.store.facts_where(author_key=sk):
                in_dm_session = (
                    scope_of(row.partition_id) is Scope.SESSION
                    and row.origin_kind == OriginKind.DM.value
                )
                if in_dm_session:
                    doomed.add(row.partition_id)  # their DM session history
                elif scope_of(row.partition_id) is Scope.DIRECTORY:
                    names.append(row.id)  # the names they were seen with
                elif row.partition_id not in doomed:
                    stripped.append(row)
            names_deleted = mem.store.delete_facts(names)
            for kind in ("dm", "local", "owner_dashboard"):  # their default private sessions
                for name in (session_key(kind, actor), legacy_session_key(kind, actor)):
                    doomed.add(policy.session_partition(name, key).id)
            mem.store.delete_archived(author_key=sk)  # expired copies of what they wrote
            result = _erase(mem, doomed, stripped)
            result["facts_deleted"] += names_deleted
            return result

    report = _retrying(erase)
    mem.invalidate()
    left = forget_member_everywhere(mem, actor)  # their raw id leaves the spaces' registry
    if left and v.owner_private:
        report["spaces_left"] = left
    report.update(finish_erasure(mem))
    # Counts would tell someone how much the owner noted about them in private.
    return report if v.owner_private else {"forgotten": 1}


def forget_guild(mem: Engine, ctx: Context, guild: str) -> dict[str, int]:
    """The owner, in private: erase a community's memory, what was learned about people
    there, and its channel sessions."""
    mem.require_owner_private(ctx)
    if not isinstance(guild, str) or not guild.strip():
        raise InvalidInput("guild must be a guild id")
    group = guild.startswith("group:")
    name = guild[len("group:") :] if group else guild
    community = community_id(ctx.platform or "", name, any_platform=True)
    ref = policy.guild_partition(community, mem.keys.key, group=group)
    names = policy.directory_partition(community, mem.keys.key, group=group)

    def erase() -> dict[str, int]:
        with mem.store.stable_keys():  # all or nothing, like forget_subject
            doomed = {ref.id, names.id}  # its memory, and the names seen there
            learned_there = mem.store.facts_where(origin_key=ref.key)
            doomed |= {
                r.partition_id for r in learned_there if scope_of(r.partition_id) is Scope.SESSION
            }
            people = [r.id for r in learned_there if scope_of(r.partition_id) is Scope.USER]
            about_people = mem.store.delete_facts(people)
            mem.store.delete_archived(origin_key=ref.key)  # expired copies learned there
            result = _erase(mem, doomed, [])
            result["facts_deleted"] += about_people
            return result

    result = _retrying(erase)
    mem.invalidate()
    result.update(finish_erasure(mem))
    return result


def erase_partitions(mem: Engine, doomed: set[str]) -> dict[str, int]:
    """Destroy whole partitions (a shared space): their facts, archive and keys, in one
    transaction, then complete the erasure as forgetting a person does."""
    result = _retrying(lambda: _in_stable_keys(mem, doomed))
    mem.invalidate()
    result.update(finish_erasure(mem))
    return result


def _in_stable_keys(mem: Engine, doomed: set[str]) -> dict[str, int]:
    with mem.store.stable_keys():
        return _erase(mem, doomed, [])


def _erase(mem: Engine, doomed: set[str], stripped: list[FactRow]) -> dict[str, int]:
    """Inside the caller's transaction: destroy these partitions (facts, archive, key) and
    re-seal `stripped` without their author."""
    deleted = keys = 0
    existing = {p.id for p in mem.store.get_partitions(sorted(doomed))}
    for pid in sorted(existing):
        deleted += mem.store.drop_partition(pid)
        mem.keys.forget(pid)
        mem.invalidate(pid)
        keys += 1
    updates = []
    for row in stripped:
        try:
            opened = mem.open_row(row)
        except IntegrityError:
            continue
        if opened is None:
            continue
        fact = replace(opened.fact, author=None)
        updates.append((replace(row, author_key=None), replace(opened, fact=fact)))
    if updates:
        mem.write_sealed(updates)
    return {"facts_deleted": deleted, "keys_destroyed": keys, "authorship_removed": len(updates)}


# --- erasure that does not depend on the files forgetting ---


def erasure_pending(mem: Engine) -> int:
    """What a copy of the files could still give up with the current master key: where the
    engine erases physically (SQLite), erasing writes whose old page images a reader kept in
    the WAL; elsewhere, partitions waiting for a re-key or a master-key rotation."""
    if mem.store.erases_physically:
        return mem.store.erasures_unflushed()
    return sum(1 for p in mem.store.partitions() if p.erase_pending != CLEAN)


def finish_erasure(mem: Engine) -> dict[str, int]:
    """What `forget_subject`, `forget_guild`, cleanup and `Memory.complete_erasure` run
    after erasing. Where the engine erases physically, truncate what a reader kept in the WAL
    (if it lets go now); elsewhere `complete_erasure` when this process can rotate the master
    key for everyone (a key file). What cannot complete stays pending, reported."""
    if mem.store.erases_physically:
        mem.store.flush_erasures()
        n = erasure_pending(mem)
        return {"erasure_pending": n} if n else {}
    if mem.keys.rotatable:
        try:
            return complete_erasure(mem)
        except (ConfidanteError, OSError) as e:  # what was erased stays erased; retried later
            log.error("completing erasure failed (%s); it stays pending", type(e).__name__)
    n = erasure_pending(mem)
    if n and not mem.keys.rotatable:
        log.warning(
            "erasure pending in %d partitions: the master key is not in a key file this "
            "process may replace, so it cannot be rotated here; run `confidante keys rotate`",
            n,
        )
    return {"erasure_pending": n}


def complete_erasure(
    mem: Engine, *, rotate: bool = False, new_key: bytes | None = None
) -> dict[str, int]:
    """Make everything erased so far unrecoverable from any copy of the database's files
    (dead tuples, WAL, old backups) together with the current master key.

    Every partition that had a fact deleted or overwritten gets a fresh data key and what is
    left in it is re-encrypted; then the master key is rotated, re-wrapping only the live
    data keys. The old data keys survive only inside old row versions, wrapped under the old
    master key, which the rotation replaced in the key file: stored nowhere any more.
    With `rotate`, the master key is rotated (to `new_key`, default random) even if nothing
    is pending."""
    rekeyed = 0
    with mem.store.rotation_lock():  # one erasure at a time among the servers
        for part in mem.store.partitions():
            if part.erase_pending == NEEDS_REKEY and part.wrapped_key is not None:
                rekeyed += _rekey(mem, part.id)
        pending = any(p.erase_pending != CLEAN for p in mem.store.partitions())
        rotated = rotate or pending
        if rotated:
            mem.keys.rotate(new_key)
    return {"partitions_rekeyed": rekeyed, "master_key_rotated": int(rotated)}


def _rekey(mem: Engine, pid: str) -> int:
    store = mem.store
    for _ in range(_RETRIES):
        found = store.get_partitions([pid])
        if not found or found[0].wrapped_key is None or found[0].erase_pending != NEEDS_REKEY:
            return 0
        part = found[0]
        old_dk = mem.keys.unwrap(part)
        assert old_dk is not None and part.wrapped_key is not None
        new_wrapped, new_dk = mem.keys.wrap_new(pid)
        try:
            done = store.rekey_partition(
                pid,
                version=part.version,
                old_wrapped=part.wrapped_key,
                new_wrapped=new_wrapped,
                facts=_moved_live(store.facts_in(pid), old_dk, new_dk),
                archived=_moved(store.archived_in(pid), old_dk, new_dk),
                keycheck=mem.keys.keycheck(),
            )
        except ConcurrentChange:
            continue
        if done:
            mem.keys.forget(pid)
            mem.invalidate(pid)
            return 1
    raise ConcurrentChange("a partition kept changing during its re-key; try again")


def _moved_live(
    rows: list[FactRow], old_dk: bytes, new_dk: bytes
) -> list[tuple[str, bytes, str | None]]:
    """Live rows under the new key, each with its text key made again under it (the old
    one, tested against a guess with the old key, goes with that key)."""
    out = []
    for r in rows:
        try:
            opened = open_record(old_dk, r)
        except IntegrityError:
            continue  # never opened, never will: left under the dying key
        key = None
        if r.text_key is not None:
            key = text_key(
                new_dk,
                r.partition_id,
                r.origin_kind,
                r.origin_key or "",
                r.author_key or "",
                same_sentence(opened.fact.text),
            )
        out.append((r.id, reencrypt(old_dk, new_dk, r), key))
    return out


def _moved(rows: list[FactRow], old_dk: bytes, new_dk: bytes) -> list[tuple[str, bytes]]:
    out = []
    for r in rows:
        try:
            out.append((r.id, reencrypt(old_dk, new_dk, r)))
        except IntegrityError:
            continue  # never opened, never will: left under the dying key
    return out


# --- master key files ---


def rotate_key_file(mem: Engine, key_file: Path, new: bytes | None = None) -> bytes:
    """Rotate the master key kept in `key_file` (the one this memory was opened with).

    Order matters for crashes: the new key is written to `<key>.new` first, then the database
    re-wraps in one transaction, then the new file replaces the old (see `vault.keyfile`)."""
    kf = mem.keys.key_file
    if kf is None or kf.path.resolve() != key_file.resolve():
        raise InvalidInput("this memory was not opened with that key file")
    return mem.keys.rotate(new)


# --- backup and restore ---


def backup(mem: Engine, dest: Path) -> Path:
    """A consistent copy through SQLite's backup API (never a file copy of a live database),
    created 0600 before its first byte. It holds what is live now, nothing erased before."""
    if not isinstance(mem.store, SQLiteStore):
        raise StoreError("back up a PostgreSQL database with pg_dump; it stays encrypted")
    if dest.exists():
        raise InvalidInput("the backup file already exists")
    mem.store.backup_to(dest)
    return dest


def backup_opens_with(src: Path, master_key: bytes) -> bool:
    """Whether `master_key` opens the backup at `src`, read without changing it (no
    migration, nothing created beside it)."""
    if not src.is_file():
        raise InvalidInput("no such backup file")
    return keycheck_opens(master_key, read_meta(src, "keycheck"))


def restore(src: Path, db: Path, master_key: bytes, *, force: bool = False) -> Path:
    """Put a backup in place after checking that `master_key` opens it.

    The content is copied page by page through SQLite's backup API while no other process
    has the database open (DatabaseInUse otherwise): a running server would go on serving
    what it cached and acknowledge writes the restore then drops."""
    if not backup_opens_with(src, master_key):
        raise WrongMasterKey("the master key does not open this backup")
    if db.exists() and db.stat().st_size > 0 and not force:
        raise InvalidInput("the database exists; pass force=True to replace it")
    target = SQLiteStore(db)
    try:
        target.restore_from(src)
    finally:
        target.close()
    return db

"""Lifecycle: the cleanup protocol, real forgetting, master-key rotation, backup and restore.

Forgetting is real: rows are deleted with SQLite's secure_delete, the WAL is checkpointed
and truncated, the file is vacuumed, and the partition's wrapped data key is destroyed, so
a copy of old rows taken earlier cannot be decrypted with what remains.
"""

from __future__ import annotations

import os
import re
import shutil
from collections import defaultdict
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import policy
from ..errors import AccessDenied, ConfidanteError, InvalidInput, StoreError, WrongMasterKey
from ..model import Context, OriginKind, Scope, community_id, normalize_actor
from ..privacy import guard
from ..store import FactRow
from ..store.sqlite import SQLiteStore
from ..vault.crypto import new_key, write_key_file
from ..vault.keyfile import pending_key_file
from ..vault.keyring import master_key_works
from ..vault.records import scope_of, to_ms

if TYPE_CHECKING:
    from ..engine import Engine

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
    expired_ids = {r.id for r in expired}
    rescanned: list[str] = []
    merged_away: list[str] = []
    extended: list[FactRow] = []
    for part in store.partitions():
        dk = mem.keys.unwrap(part)
        if dk is None:
            continue
        opened: dict[tuple[str, str | None, str | None], list[tuple[FactRow, str]]] = defaultdict(
            list
        )
        for row in store.facts_in(part.id):
            if row.id in expired_ids:
                continue
            fact = mem.decrypt(row)
            if fact is None:
                continue
            text = fact.fact.text
            if guard.t3_categories(text) or (
                scope_of(row.partition_id) is Scope.GLOBAL and not _public_ok(text)
            ):
                rescanned.append(row.id)
                continue
            opened[(row.origin_kind, row.origin_key, row.author_key)].append((row, text))
        for facts in opened.values():
            for group in _duplicates(facts):
                keep, rest = group[0], group[1:]
                expiries = [r.expires_at for r in group]
                longest = None if None in expiries else max(e for e in expiries if e is not None)
                merged_away += [r.id for r in rest]
                if longest != keep.expires_at:
                    extended.append(replace(keep, expires_at=longest))
    if not dry_run:
        store.delete_facts(rescanned + merged_away)
        store.update_facts(extended)

    # 4. outdated public patterns are dropped
    stale_before = to_ms(now - timedelta(days=mem.settings.pattern_max_age_days))
    patterns_dropped = (
        sum(1 for p in store.patterns() if p.last_seen < stale_before)
        if dry_run
        else store.drop_patterns(stale_before)
    )

    # 5. compact, 6. log one line that is kept
    deleted = purged + len(rescanned)
    line = (
        f"[{now.date().isoformat()}] Memory cleanup: {len(expired)} archived, "
        f"{deleted} deleted, {len(merged_away)} merged"
    )
    if not dry_run:
        store.compact()
        store.append_cleanup_log(now_ms, line)
        mem.invalidate()
    return {
        "archived": len(expired),
        "purged": purged,
        "rescanned_deleted": len(rescanned),
        "deleted": deleted,
        "merged": len(merged_away),
        "patterns_dropped": patterns_dropped,
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
    doomed = {policy.user_partition(actor, key).id}
    stripped: list[FactRow] = []
    for row in mem.store.facts_where(author_key=sk):
        if scope_of(row.partition_id) is Scope.SESSION and row.origin_kind == OriginKind.DM.value:
            doomed.add(row.partition_id)  # their DM session history
        elif row.partition_id not in doomed:
            stripped.append(row)
    for surface in ("dm", "local", "owner_dashboard"):  # their default private sessions
        doomed.add(policy.session_partition(f"{surface}:{actor}", key).id)
    mem.store.delete_archived(author_key=sk)  # expired copies of what they wrote
    report = _erase(mem, doomed, stripped)
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
    doomed = {ref.id}
    learned_there = mem.store.facts_where(origin_key=ref.key)
    sessions = {r.partition_id for r in learned_there if scope_of(r.partition_id) is Scope.SESSION}
    doomed |= sessions
    people = [r.id for r in learned_there if scope_of(r.partition_id) is Scope.USER]
    about_people = mem.store.delete_facts(people)
    mem.store.delete_archived(origin_key=ref.key)  # expired copies learned there
    result = _erase(mem, doomed, [])  # compacts once, after every deletion
    result["facts_deleted"] += about_people
    return result


def _erase(mem: Engine, doomed: set[str], stripped: list[FactRow]) -> dict[str, int]:
    deleted = keys = 0
    existing = {p.id for p in mem.store.get_partitions(sorted(doomed))}
    for pid in sorted(existing):
        deleted += mem.store.drop_partition(pid)
        mem.keys.forget(pid)
        mem.invalidate(pid)
        keys += 1
    updates = []
    for row in stripped:
        opened = mem.decrypt(row)
        if opened is None:
            continue
        fact = replace(opened.fact, author=None)
        updates.append(
            mem.reseal(replace(row, author_key=None), fact, opened.vector, opened.embedder)
        )
    mem.store.update_facts(updates)
    mem.store.compact()  # vacuum and truncate the WAL: deleted pages leave the files
    mem.invalidate()
    return {"facts_deleted": deleted, "keys_destroyed": keys, "authorship_removed": len(updates)}


# --- master key files ---


def rotate_key_file(mem: Engine, key_file: Path, new: bytes | None = None) -> bytes:
    """Rotate the master key kept in `key_file`.

    Order matters for crashes: the new key is written to `<key>.new` first, then the database
    re-wraps in one transaction, then the new file replaces the old. Opening the database
    after a crash at any point finds a key that works (see `recover_key_file`)."""
    new = new or new_key()
    pending = pending_key_file(key_file)
    if pending.exists():
        pending.unlink()  # left by an earlier crash before its database commit
    write_key_file(pending, new)
    mem.rotate_master_key(new)
    os.replace(pending, key_file)
    return new


# --- backup and restore ---


def backup(mem: Engine, dest: Path) -> Path:
    if not isinstance(mem.store, SQLiteStore):
        raise StoreError("back up a PostgreSQL database with pg_dump; it stays encrypted")
    if dest.exists():
        raise InvalidInput("the backup file already exists")
    dest.parent.mkdir(parents=True, exist_ok=True)
    mem.store.backup_to(dest)
    os.chmod(dest, 0o600)
    return dest


def restore(src: Path, db: Path, master_key: bytes, *, force: bool = False) -> Path:
    """Copy a backup into place after checking that `master_key` opens it."""
    if not src.is_file():
        raise InvalidInput("no such backup file")
    probe = SQLiteStore(src)
    try:
        if not master_key_works(probe, master_key):
            raise WrongMasterKey("the master key does not open this backup")
    finally:
        probe.close()
    if db.exists() and not force:
        raise InvalidInput("the database exists; pass force=True to replace it")
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    db.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, db)
    os.chmod(db, 0o600)
    return db

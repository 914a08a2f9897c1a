"""Moving in and out: importers for the layouts the earlier systems used, and exports.

    from confidante import Memory, Context
    from confidante.interop import import_from, export_jsonl

    with Memory.open("memory.db") as mem:
        owner = Context.local("discord:1")
        report = import_from(mem, "silo-tree", "~/agent", owner, sender_ids="senders.txt")
        print(report.to_dict())

Every entry goes through the same write path as `remember` (policy, privacy guard,
encryption); a refused entry is reported by position and category and never stops the
rest. Imports keep each entry's original date, and expiry counts from it. Only the owner,
in private, imports dated history or anything into other people's silos; exports are the
owner's, local, and plaintext.

Importers never widen: in a folder, a file's place decides the widest audience its
entries reach and what a file says about itself can only narrow it (`narrowing`); no
symlink inside the named folder is followed, and every read is bounded (`files`).
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import nullcontext
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .. import policy
from ..config import MAX_TTL_DAYS
from ..errors import AccessDenied, InvalidInput
from ..model import Context, Scope
from ..vault.crypto import new_key
from .actors import UNMAPPED_PLATFORM, SenderMap, read_user_map, silo_hash
from .entries import Entry, Item, PatternSeen, SkillUses, Skip, place
from .export import (
    PLAINTEXT_WARNING,
    ExportReport,
    export_jsonl,
    export_memory_facts,
    export_silo_tree,
)
from .files import DEFAULT_LIMITS, Budget, ReadLimits, Tree
from .jsonl import read_jsonl
from .mem0 import read_mem0
from .memory_facts import read_memory_facts
from .report import SKIP_REASONS, ImportReport, Refusal
from .silo_tree import read_silo_tree
from .sniff import guess_format
from .tiered import read_tiered
from .writer import existing_places, write

if TYPE_CHECKING:
    from ..memory import Memory

FORMATS = ("silo-tree", "tiered", "memory-facts", "mem0", "jsonl")
UNMAPPED_RECORD = "interop.unmapped_silos"  # sealed meta: silo hashes awaiting a mapping


class ProgressSink(Protocol):
    def start(self, total: int) -> None: ...

    def advance(self, n: int) -> None: ...


PathLike = str | os.PathLike[str]


def import_from(
    mem: Memory,
    fmt: str,
    path: PathLike,
    ctx: Context,
    *,
    namespace: str | None = None,
    sender_ids: PathLike | SenderMap | None = None,
    platform: str = "discord",
    user_map: PathLike | dict[str, str] | None = None,
    ttl_days: float | None = None,
    dry_run: bool = False,
    progress: ProgressSink | None = None,
    limits: ReadLimits = DEFAULT_LIMITS,
) -> ImportReport:
    """Import `path` (in layout `fmt`, one of `FORMATS`) as `ctx`.

    Every format but `jsonl` is the owner's, in private (`Context.local(owner)`): they
    write into other people's silos and keep dates. `jsonl` of plain texts may be imported
    by anyone, written where `ctx` writes (`namespace`). `ttl_days` sets the lifetime of
    what this import brings in (entries whose source kept an expiry keep it), counted from
    each entry's original date; entries already past it are archived, and reported.
    `dry_run` writes into a throwaway database instead, so the report is exactly what the
    real import would do. `limits` bound what is read (per file, per import); what they
    cut off is reported (`too_large`, `import_limit`), never read."""
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown format; one of: {', '.join(FORMATS)}")
    source = Path(os.path.expanduser(os.fspath(path)))
    ttl = None
    if ttl_days is not None:
        if (
            isinstance(ttl_days, bool)
            or not isinstance(ttl_days, int | float)
            or not 0 < ttl_days <= MAX_TTL_DAYS
        ):
            raise InvalidInput(f"ttl_days must be a positive number, at most {MAX_TTL_DAYS:g}")
        ttl = timedelta(days=ttl_days)
    viewer = mem.viewer(ctx)
    if fmt != "jsonl":
        _require_import(mem, ctx, places_entries=True)
    if not source.exists():
        raise InvalidInput("no such file or folder")
    report = ImportReport(fmt, dry_run=dry_run)
    unmapped: list[str] = []
    senders: SenderMap | None = None
    if fmt == "silo-tree":
        if not source.is_dir():
            raise InvalidInput("the silo tree must be a folder")
        given = _senders(sender_ids, limits)
        tree = read_silo_tree(Tree(source, Budget(limits)), ctx, given, mem.owners)
        items, unmapped, senders = tree.items, tree.unmapped, tree.senders
        report.notes += tree.notes
        report.narrowed = tree.narrowed
        if tree.narrowed:
            report.notes.append(
                f"{len(tree.narrowed)} entries asked for more than their file's place allows "
                "(a person's own fact from a community, in their silo): imported as said in "
                "their DM"
            )
    elif fmt == "tiered":
        items = read_tiered(source, ctx, Budget(limits))
    elif fmt == "memory-facts":
        items = read_memory_facts(source, ctx, platform=_platform(platform), limits=limits)
    elif fmt == "mem0":
        users = user_map if isinstance(user_map, dict) else None
        if user_map is not None and users is None:
            users = read_user_map(Path(os.fspath(user_map)), limits)
        items = read_mem0(source, ctx, users, limits)
    else:
        if not source.is_file():
            raise InvalidInput("a JSONL import reads a file")
        lines = read_jsonl(
            source, ctx, namespace, owner_private=viewer.owner_private, limits=limits
        )
        _require_import(mem, ctx, places_entries=lines.exported > 0)
        items = lines.items
        if not viewer.owner_private and any(isinstance(i, Entry) and i.created_at for i in items):
            report.notes.append("dates ignored: only the owner, in private, imports dated history")
    report.read = sum(1 for i in items if not isinstance(i, Skip))
    report.unmapped_silos = sorted(set(unmapped))
    existing = existing_places(mem.list(ctx))
    if progress is not None:
        progress.start(len(items))
    advance = progress.advance if progress is not None else None
    with _scratch(mem) if dry_run else nullcontext(mem) as target:
        write(
            target,
            items,
            report,
            authority=ctx,
            existing=existing,
            ttl=ttl,
            progress=advance,
            reader=mem,
        )
    if fmt == "silo-tree" and senders is not None and viewer.owner_private:
        _settle_silos(mem, ctx, senders, report, unmapped, dry_run)
    if not report.imported and not report.archived and not report.stats_recorded():
        guess = guess_format(source)
        if guess is not None and guess != fmt:
            report.looks_like = guess
            report.notes.append(f"nothing imported: this looks like {guess} (--from {guess})")
    return report


def _require_import(mem: Memory, ctx: Context, *, places_entries: bool) -> None:
    if code := policy.import_denial(ctx, mem.owners, places_entries=places_entries):
        mem.deny(ctx, code, None)  # invariant 11: recorded (code, surface, time), never content
        raise AccessDenied(
            code,
            "this import places entries itself (other silos, scopes, dates): only the owner, "
            "in private, may run it",
        )


def _platform(name: str) -> str:
    try:
        return policy.parse_actor(f"{name}:x")[0]
    except Exception:
        raise InvalidInput("platform must be a short lowercase name (e.g. discord)") from None


def _senders(sender_ids: PathLike | SenderMap | None, limits: ReadLimits) -> SenderMap | None:
    """The sender list the owner gave; None: the tree's own (written by the export)."""
    if isinstance(sender_ids, SenderMap) or sender_ids is None:
        return sender_ids
    return SenderMap.from_file(Path(os.path.expanduser(os.fspath(sender_ids))), limits)


class _scratch:
    """A throwaway database with the same owners and settings: a dry run writes there."""

    def __init__(self, mem: Memory) -> None:
        self.mem = mem

    def __enter__(self) -> Memory:
        from ..memory import Memory

        self.dir = tempfile.TemporaryDirectory(prefix="confidante-dry-run-")
        db = Path(self.dir.name) / "dry-run.db"
        settings = self.mem.settings.model_copy(update={"db": db, "key_file": None})
        self.scratch = Memory.open(
            db,
            owner_ids=list(self.mem.owners),
            master_key=new_key(),
            settings=settings,
            clock=self.mem.clock,
        )
        return self.scratch

    def __exit__(self, *exc: object) -> None:
        self.scratch.close()
        self.dir.cleanup()


# --- silos no sender matched ---------------------------------------------------------------


def unmapped_silos(mem: Memory) -> list[str]:
    """Silo hashes imported without a known sender, awaiting a mapping."""
    raw = mem.sealed_meta(UNMAPPED_RECORD)
    return sorted(json.loads(raw)) if raw else []


def _record_unmapped(mem: Memory, hashes: list[str]) -> None:
    mem.set_sealed_meta(UNMAPPED_RECORD, json.dumps(sorted(set(hashes))).encode())


def _settle_silos(
    mem: Memory,
    ctx: Context,
    senders: SenderMap,
    report: ImportReport,
    unmapped: list[str],
    dry_run: bool,
) -> None:
    waiting = set(unmapped_silos(mem))
    mappable = {h: a for h in waiting if (a := senders.for_hash(h))}
    if dry_run:
        report.merged_silos = sorted(mappable)
        return
    for h, actor in sorted(mappable.items()):
        if merge_silo(mem, ctx, h, actor):
            report.merged_silos.append(h)
            waiting.discard(h)
    _record_unmapped(mem, sorted(waiting | set(unmapped)))


def merge_silo(mem: Memory, ctx: Context, silo: str, actor: str) -> bool:
    """Move the facts of an unmapped silo (`silo:<hash>`) to the person it turned out to
    be, keeping dates and origins, then erase the placeholder and its keys. The owner's,
    in private. False (and nothing erased) if any fact could not be moved."""
    mem.require_owner_private(ctx)
    placeholder = f"{UNMAPPED_PLATFORM}:{silo[:16].lower()}"
    facts = [f for f in mem.list(ctx) if f.scope is Scope.USER and f.subject == placeholder]
    items: list[Item] = []
    for f in facts:
        kind, _, raw = f.origin.partition(":")
        origin = f"{kind}:{actor}" if raw == placeholder else f.origin
        author = actor if f.author == placeholder else f.author
        where = place(
            "user",
            subject=actor,
            community=f.community,
            origin=origin,
            author=author,
            owner_ctx=ctx,
        )
        items.append(
            Entry(
                f.text,
                where[0],
                where[1],
                f"silo {silo[:16]}",
                created_at=f.created_at,
                expires_at=f.expires_at,
                kind=f.kind,
                source_skill=f.source_skill,
                confidence=f.confidence,
            )
        )
    moved = ImportReport("merge")
    write(mem, items, moved, authority=ctx, existing=existing_places(mem.list(ctx)))
    if moved.refused:
        return False
    mem.forget_subject(ctx, placeholder)
    _record_unmapped(mem, [h for h in unmapped_silos(mem) if h != silo[:16].lower()])
    return True


__all__ = [
    "FORMATS",
    "PLAINTEXT_WARNING",
    "SKIP_REASONS",
    "Entry",
    "ExportReport",
    "ImportReport",
    "PatternSeen",
    "ProgressSink",
    "ReadLimits",
    "Refusal",
    "SenderMap",
    "SkillUses",
    "Skip",
    "export_jsonl",
    "export_memory_facts",
    "export_silo_tree",
    "import_from",
    "merge_silo",
    "silo_hash",
    "unmapped_silos",
]

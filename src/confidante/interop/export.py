"""Exports: everything the owner's local context may see, as plaintext files.

They are the owner's alone and local (`Context.local(owner)`), written with mode 0600, and
they are NOT encrypted: whoever reads the files reads the memory. Every file lands inside
the destination: each path component made from an id is sanitised, and a path that would
resolve outside (an id such as `../x`, a symlinked folder left in a forced export) is
refused before anything is written there. JSON Lines keeps every
field; the silo tree is for agents that read files (and goes back in with
`--from silo-tree`, dates and origins included, through each entry's comment).

In the silo tree, a fact's folder says the widest audience it has, because on the way
back a file's place decides that and its comment may only narrow it (`narrowing`): a
person's own fact learned in a community goes in that community's folder (beside the
community's memory), not in their silo; a community whose id cannot be a folder name gets a
`~<hash>` folder, which only that id's comment matches."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import policy
from ..errors import AccessDenied, InvalidInput
from ..model import Context, Fact, Scope
from .actors import UNMAPPED_PLATFORM, silo_hash
from .markdown import render_daily_note, render_memory_md
from .narrowing import HASHED
from .silo_tree import SENDER_IDS_FILE

if TYPE_CHECKING:
    from ..memory import Memory

PLAINTEXT_WARNING = (
    "this export is plaintext: anyone who can read these files reads the memory. "
    "Keep it on an encrypted disk and delete it when done."
)
_FIELDS = (
    "id",
    "text",
    "scope",
    "subject",
    "community",
    "origin",
    "author",
    "kind",
    "source_skill",
    "confidence",
    "created_at",
    "updated_at",
    "expires_at",
)


@dataclass
class ExportReport:
    path: str
    facts: int = 0
    by_scope: dict[str, int] = field(default_factory=dict)
    files: int = 0
    warning: str = PLAINTEXT_WARNING

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "facts": self.facts,
            "by_scope": dict(sorted(self.by_scope.items())),
            "files": self.files,
            "warning": self.warning,
        }


def _facts(mem: Memory, ctx: Context) -> list[Fact]:
    mem.viewer(ctx)
    if code := policy.export_denial(ctx, mem.owners):
        mem.deny(ctx, code, None)
        raise AccessDenied(code)
    facts = mem.list(ctx)
    facts.sort(key=lambda f: (f.created_at or f.updated_at, f.id))  # oldest first
    return facts


def fact_record(f: Fact) -> dict[str, Any]:
    d = f.to_dict()
    return {k: d.get(k) for k in _FIELDS}


def _private_file(path: Path, text: str) -> None:
    """Write `text` to `path` with mode 0600, whatever was there: a new file is made beside
    it (mkstemp: 0600, never through a symlink) and renamed over it, so an existing file
    keeps no wider mode and a symlink at `path` is replaced, not followed."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _inside(dest: Path, rel: Path) -> Path:
    """`dest / rel`, refused unless it resolves inside `dest` (symlinks followed)."""
    root = dest.resolve()
    target = (dest / rel).resolve()
    if root != target and root not in target.parents:
        raise InvalidInput("an export path would leave the export folder; nothing written there")
    return dest / rel


def _count(report: ExportReport, facts: list[Fact]) -> None:
    report.facts = len(facts)
    for f in facts:
        report.by_scope[f.scope.value] = report.by_scope.get(f.scope.value, 0) + 1


def export_jsonl(mem: Memory, ctx: Context, dest: Path, *, force: bool = False) -> ExportReport:
    """One JSON object a line, every field of every fact the owner's local context sees."""
    dest = Path(dest)
    if dest.exists() and not force:
        raise InvalidInput("the export file already exists")
    facts = _facts(mem, ctx)
    lines = [json.dumps(fact_record(f), ensure_ascii=False) for f in facts]
    _private_file(dest, "".join(line + "\n" for line in lines))
    report = ExportReport(str(dest), files=1)
    _count(report, facts)
    return report


def _meta(f: Fact) -> dict[str, Any]:
    r = fact_record(f)
    return {k: v for k, v in r.items() if k not in ("id", "text", "updated_at") and v is not None}


def _header(f: Fact) -> str:
    day = f.created_at.date().isoformat() if f.created_at else "undated"
    return day if f.kind == "fact" else f"{day} ({f.kind})"


def _community_dir(f: Fact) -> Path | None:
    """The folder of the community whose audience a fact has: its community's memory, or
    a member's own fact learned there (the only kind of person's fact a community's file
    may bring back). None for everything else."""
    kind, _, raw = f.origin.partition(":")
    if f.scope is Scope.GUILD:
        community = f.community or "unknown:unknown"
    elif f.scope is Scope.USER and kind in ("guild", "group") and raw and f.author == f.subject:
        community = raw
    else:
        return None
    platform, _, ident = community.partition(":")
    folder = ident if _safe(ident) == ident else HASHED + silo_hash(community)
    return Path("groups" if kind == "group" else "guilds") / _safe(platform) / folder


def _safe(name: str) -> str:
    """A path component from an id: no separators, no dot names."""
    cleaned = "".join(c if c.isalnum() or c in "-_.@+" else "_" for c in name)
    return cleaned if cleaned.strip(".") else "_"


_SILO_NAME = re.compile(r"^[0-9a-f]{16}$")


def _silo_dir(subject: str) -> tuple[str, bool]:
    """The `users/` folder of a person, and whether `sender-ids.txt` must name them. An
    importer's placeholder `silo:<hash>` keeps its hash; any other id (a person, or a
    `silo:` id the importers never mint) is hashed, so no id is ever a path."""
    platform, _, ident = subject.partition(":")
    if platform == UNMAPPED_PLATFORM and _SILO_NAME.match(ident):
        return ident, False
    return silo_hash(subject), True


def export_silo_tree(mem: Memory, ctx: Context, dest: Path, *, force: bool = False) -> ExportReport:
    """`MEMORY.md` (owner), `users/<sha256(actor)[:16]>/MEMORY.md` (each person),
    `guilds/<platform>/<id>/MEMORY.md` and `groups/...` (communities, and their members'
    own facts learned there), `YYYY-MM-DD.md`
    (global notes by day), `sessions/local.json` (this context's conversation), and
    `sender-ids.txt` (the people, so the hashes map back on import)."""
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())) and not force:
        raise InvalidInput("the export folder exists and is not empty")
    facts = _facts(mem, ctx)
    memory_files: dict[Path, list[tuple[str, str, dict[str, Any]]]] = defaultdict(list)
    days: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    session: list[dict[str, Any]] = []
    people: set[str] = set()
    for f in facts:
        block = (_header(f), f.text, _meta(f))
        community = _community_dir(f)
        if f.scope is Scope.OWNER:
            memory_files[Path("MEMORY.md")].append(block)
        elif community is not None:
            memory_files[community / "MEMORY.md"].append(block)
        elif f.scope is Scope.USER and f.subject:
            name, named = _silo_dir(f.subject)
            if named:
                people.add(f.subject)
            memory_files[Path("users") / name / "MEMORY.md"].append(block)
        elif f.scope is Scope.GLOBAL:
            day = f.created_at.date().isoformat() if f.created_at else "undated"
            days[day].append((f.text, _meta(f)))
        elif f.scope is Scope.SESSION:
            role = "assistant" if f.kind == "reply" else "user"
            session.append({"role": role, "content": f.text, "timestamp": _iso(f), "kind": f.kind})
    report = ExportReport(str(dest))
    files: dict[Path, str] = {}
    for rel, blocks in memory_files.items():
        title = "MEMORY" if rel == Path("MEMORY.md") else f"MEMORY ({rel.parent.as_posix()})"
        files[rel] = render_memory_md(title, blocks)
    for day, notes in days.items():
        files[Path(f"{day}.md")] = render_daily_note(day, notes)
    if session:
        body = json.dumps({"messages": session}, ensure_ascii=False, indent=1)
        files[Path("sessions") / "local.json"] = body + "\n"
    if people:
        files[Path(SENDER_IDS_FILE)] = "".join(f"{p}\n" for p in sorted(people))
    dest.mkdir(parents=True, exist_ok=True, mode=0o700)
    # every path is checked before the first file is written: a refused export writes nothing
    for rel in files:
        _inside(dest, rel)
    for rel, text in files.items():
        _private_file(_inside(dest, rel), text)
    report.files = len(memory_files) + len(days) + bool(session) + bool(people)
    _count(report, facts)
    return report


def _iso(f: Fact) -> str | None:
    return f.created_at.isoformat() if f.created_at else None


def export_memory_facts(
    mem: Memory, ctx: Context, dest: Path, *, force: bool = False
) -> ExportReport:
    """The Discord bot's `memory_facts` table (a new SQLite file, mode 0600): owner facts as
    `scope='owner'`, `subject='__owner__'` (the bot's marker); a person's facts as
    `scope='user'` with their raw id as `user_id` and `subject` (and the guild they were
    learned in); community facts as `scope='guild'` with `subject='__lore__'` and the author
    as `user_id`; global notes as `scope='global'`. Shared spaces and conversation history
    have no place in that table and are left out (counted in `by_scope`, not written).
    Raw ids lose their platform, as the bot stored them; `--from memory-facts --platform P`
    reads them back."""
    dest = Path(dest)
    if dest.exists() and not force:
        raise InvalidInput("the export file already exists (add --force to replace it)")
    facts = _facts(mem, ctx)
    rows = []
    for f in facts:
        row = _bot_row(f)
        if row is not None:
            rows.append(row)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    os.close(fd)
    try:
        con = sqlite3.connect(tmp)
        with con:
            con.execute(
                "CREATE TABLE memory_facts (id INTEGER PRIMARY KEY, scope TEXT, guild_id TEXT, "
                "channel_id TEXT, user_id TEXT, subject TEXT, fact TEXT, fact_type TEXT, "
                "evidence_text TEXT, source_message_id TEXT, confidence REAL, "
                "is_active INTEGER, created_at TEXT)"
            )
            con.executemany(
                "INSERT INTO memory_facts (scope, guild_id, channel_id, user_id, subject, fact, "
                "fact_type, evidence_text, source_message_id, confidence, is_active, "
                "created_at) VALUES (?, ?, NULL, ?, ?, ?, ?, NULL, NULL, ?, 1, ?)",
                rows,
            )
        con.close()
        os.chmod(tmp, 0o600)
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    report = ExportReport(str(dest), files=1)
    _count(report, facts)
    return report


def _raw(actor: str | None) -> str | None:
    return None if actor is None else actor.partition(":")[2]


def _bot_row(f: Fact) -> tuple[Any, ...] | None:
    when = f.created_at.isoformat() if f.created_at else None
    guild = _raw(f.community) if f.community else None
    common = (f.text, f.kind, f.confidence, when)
    if f.scope is Scope.OWNER:
        return ("owner", None, None, "__owner__", *common)
    if f.scope is Scope.USER and f.subject:
        kind, _, where = f.origin.partition(":")  # guild:<platform:id> for what was said there
        learned_in = _raw(where) if kind in ("guild", "group") else None
        return ("user", learned_in, _raw(f.subject), _raw(f.subject), *common)
    if f.scope is Scope.GUILD:
        return ("guild", guild, _raw(f.author), "__lore__", *common)
    if f.scope is Scope.GLOBAL:
        return ("global", None, None, "__global__", *common)
    return None

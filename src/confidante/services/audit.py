"""The privacy audit: the tiered model's checklist, run over the whole store.

Findings name a check, a scope, a fact id and categories; never a value.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfidanteError, StoreError
from ..model import Scope
from ..privacy import IDENTIFIER_CATEGORIES, T3_CATEGORIES, guard
from ..store.sqlite import SQLiteStore
from ..vault.records import SEALED_LABEL, scope_of
from .lifecycle import erasure_pending

if TYPE_CHECKING:
    from ..engine import Engine

CHECKS = {
    "t3_data": "no secrets or T3 data anywhere (re-scanned with today's detectors)",
    "public_identifiers": "no identifiers in data every audience can read",
    "expiry": "every internal (T2) fact has an expiry",
    "plaintext_at_rest": "nothing readable in the files without the key",
    "decryptable": "every stored fact opens with its partition key",
    "erasure": "nothing erased is still recoverable with the current master key",
}

# Runs in a child process: opening and closing the database files in this process, which
# holds SQLite connections to them, would drop its POSIX locks (and let another process
# delete the WAL under it). The needles arrive on stdin, never on the command line.
_SCAN = """
import json, sys
needles = [n.encode() for n in json.load(sys.stdin)]
counts = {}
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        continue
    counts[path] = sum(1 for n in needles if n in blob)
print(json.dumps(counts))
"""


def audit(mem: Engine) -> dict[str, Any]:
    findings: list[dict[str, Any]] = []
    needles: set[str] = set()
    facts_seen = 0

    def find(check: str, **detail: Any) -> None:
        findings.append({"check": check, **detail})

    for part in mem.store.partitions():
        for row in mem.store.facts_in(part.id):
            facts_seen += 1
            if row.tier == "internal" and row.expires_at is None:
                find("expiry", scope=row.scope, id=row.id)
            try:
                opened = mem.decrypt(row)
            except ConfidanteError:
                opened = None
            if opened is None:
                find("decryptable", scope=row.scope, id=row.id)
                continue
            f = opened.fact
            public = scope_of(row.partition_id) is Scope.GLOBAL
            for check, cats in _recheck_fact(f.text, f.kind, f.source_skill, public):
                find(check, scope=row.scope, id=row.id, categories=cats)
            # labels written before they were sealed sit in plaintext columns: readable by
            # anyone with the files, so they must be as clean as public text
            if row.kind != SEALED_LABEL and (
                cats := sorted(
                    {
                        *guard.label_categories(row.kind, public=True),
                        *guard.label_categories(row.source_skill, public=True),
                    }
                )
            ):
                find("public_identifiers", scope="labels", id=row.id, categories=cats)
            if len(f.text) >= 8:
                needles.add(f.text)
            needles.update(x for x in (f.subject, f.author, f.community) if x)

    for cats in _recheck_public_stats(mem.store.skill_stats(), mem.store.patterns()):
        find("public_identifiers", scope="public_stats", categories=cats)

    if isinstance(mem.store, SQLiteStore):
        mem.store.checkpoint()
        for name, hits in _scan_files(_db_files(mem.store.path), sorted(needles)).items():
            if hits:
                find("plaintext_at_rest", file=name, count=hits)

    pending = erasure_pending(mem)
    if pending:
        find("erasure", partitions=pending)

    failed = {f["check"] for f in findings}
    return {
        "ok": not findings,
        "facts_checked": facts_seen,
        "unreadable_rows": sum(1 for f in findings if f["check"] == "decryptable"),
        "erasure_pending": pending,
        "checks": [
            {
                "name": name,
                "description": text,
                "ok": name not in failed,
                "findings": sum(1 for f in findings if f["check"] == name),
            }
            for name, text in CHECKS.items()
        ],
        "findings": findings,
    }


def _recheck_fact(
    text: str, kind: str, source_skill: str | None, public: bool
) -> list[tuple[str, list[str]]]:
    """(check, categories) for one fact re-scanned with today's detectors: T3 anywhere, in
    its text or its labels; identifiers too when every audience reads it."""
    out: list[tuple[str, list[str]]] = []
    labels = [*guard.label_categories(kind, public=False)]
    labels += guard.label_categories(source_skill, public=False)
    if public:
        found = set(guard.public_categories(text)) | set(labels)
        found |= set(guard.label_categories(kind, public=True))
        found |= set(guard.label_categories(source_skill, public=True))
        if t3 := sorted(found & T3_CATEGORIES):
            out.append(("t3_data", t3))
        if identifiers := sorted(found & IDENTIFIER_CATEGORIES):
            out.append(("public_identifiers", identifiers))
    elif t3 := sorted(set(guard.t3_categories(text)) | set(labels)):
        out.append(("t3_data", t3))
    return out


def _recheck_public_stats(
    skill_rows: Iterable[Any], pattern_rows: Iterable[Any]
) -> list[list[str]]:
    """Categories found in each stored T1 label: skill names, pattern triggers, skills used
    (read from the store: `public_stats()` already leaves out what fails today's guard)."""
    out: list[list[str]] = []
    skills = {s.skill for s in skill_rows}
    for p in pattern_rows:
        skills.update(p.skills.split(","))
        if cats := guard.public_categories(p.trigger):
            out.append(cats)
    for skill in sorted(skills):
        if cats := guard.label_categories(skill, public=True):
            out.append(cats)
    return out


def _db_files(db: Path) -> list[Path]:
    return [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-journal")) if p.exists()]


def _scan_files(paths: list[Path], needles: list[str]) -> dict[str, int]:
    """How many needles each file holds, read by a child process (see `_SCAN`)."""
    if not paths or not needles:
        return {}
    done = subprocess.run(
        [sys.executable, "-c", _SCAN, *map(str, paths)],
        input=json.dumps(needles),
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        raise StoreError("the file scan failed")
    return {Path(p).name: n for p, n in json.loads(done.stdout).items()}

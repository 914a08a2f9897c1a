"""What an import did: counts, and every refusal and skip by position (never by value)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

SKIP_REASONS: dict[str, str] = {
    # the source itself
    "duplicate": "already in memory, in the same place",
    "empty": "no text",
    "invalid": "not in the layout's shape (or a comment naming no valid place)",
    "invalid_json": "a JSON Lines line that is not JSON",
    "no_text": "a JSON Lines line without text",
    "no_entry": "a note with no entry in it",
    "undecryptable": "an old XOR entry no candidate key opens",
    "not_utf8": "a file that is not UTF-8 text",
    "not_a_silo": "a users/ folder not named by a hash",
    "unclosed_comment": "an HTML comment never closed (it swallowed an entry's start)",
    "stray_metadata": "confidante's comment with no entry of its own",
    "inactive": "a memory_facts row marked inactive",
    "no_subject": "a person's row naming nobody",
    "no_guild": "a community row naming no community",
    "unknown_scope": "a row whose scope is none of owner, user, guild, global",
    "invalid_user_id": "a Mem0 user id that cannot be an actor",
    # where a file is, and what it says about itself
    "symlink": "a symlink inside the imported folder: never followed",
    "not_a_file": "a FIFO, socket or device where a file was expected: never read",
    "unreadable": "a file or folder the importing user may not read",
    "metadata_widens": "a comment asking for more than the file's place allows",
    "front_matter_refused": "front matter with YAML aliases, too deep, or too long",
    # bounds
    "too_large": "a file larger than an import reads in one file",
    "import_limit": "past what one import reads in all (bytes, or names listed)",
}
"""Every reason word a skip may carry, with what it means. (A JSON Lines line whose scope
names no valid place is skipped with the error's code: `invalid_context`, ...)"""


@dataclass(frozen=True, slots=True)
class Refusal:
    position: str
    code: str  # private_data_refused, identifier_refused, owner_required, invalid_actor, ...
    categories: tuple[str, ...] = ()  # e.g. ("email",) for a privacy refusal


@dataclass
class ImportReport:
    format: str
    dry_run: bool = False
    read: int = 0  # entries and stats found in the source
    imported: int = 0  # facts stored and recallable
    archived: list[str] = field(default_factory=list)  # already past expiry: archived
    refused: list[Refusal] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (position, reason)
    stats: dict[str, int] = field(default_factory=lambda: {"skills": 0, "patterns": 0})
    unmapped_silos: list[str] = field(default_factory=list)  # silo hashes no sender matched
    merged_silos: list[str] = field(default_factory=list)  # earlier unmapped, now merged
    narrowed: list[str] = field(default_factory=list)  # imported narrower than their comment
    notes: list[str] = field(default_factory=list)
    # nothing was imported and the source looks like another layout: which one
    looks_like: str | None = None

    def stats_recorded(self) -> bool:
        return any(self.stats.values())

    def refused_by_category(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for r in self.refused:
            for c in r.categories or (r.code,):
                counts[c] += 1
        return dict(sorted(counts.items()))

    def skipped_by_reason(self) -> dict[str, int]:
        return dict(sorted(Counter(reason for _, reason in self.skipped).items()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "dry_run": self.dry_run,
            "read": self.read,
            "imported": self.imported,
            "archived": len(self.archived),
            "archived_positions": list(self.archived),
            "looks_like": self.looks_like,
            "refused": len(self.refused),
            "refused_by_category": self.refused_by_category(),
            "refusals": [
                {"position": r.position, "code": r.code, "categories": list(r.categories)}
                for r in self.refused
            ],
            "skipped": len(self.skipped),
            "skipped_by_reason": self.skipped_by_reason(),
            "skips": [{"position": p, "reason": why} for p, why in self.skipped],
            "stats": dict(self.stats),
            "unmapped_silos": list(self.unmapped_silos),
            "merged_silos": list(self.merged_silos),
            "narrowed": list(self.narrowed),
            "notes": list(self.notes),
        }

"""What an import did: counts, and every refusal and skip by position (never by value)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


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
    notes: list[str] = field(default_factory=list)

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
            "notes": list(self.notes),
        }
